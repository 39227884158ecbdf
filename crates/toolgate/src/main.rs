//! The `toolgate` binary; everything lives in the library.

fn main() -> std::process::ExitCode {
    toolgate::cli::main()
}
