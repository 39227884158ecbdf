//! The `toolgate` binary; everything lives in the library.

/// mimalloc instead of the system allocator: a tool call allocates and frees thousands
/// of small strings and maps (the parsed upstream body, the answer), and glibc malloc
/// was about a quarter of the CPU per call under concurrency (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // rustls with ring for every HTTPS client, before any is built.
    toolgate_engine::tls::init();
    toolgate::cli::main()
}
