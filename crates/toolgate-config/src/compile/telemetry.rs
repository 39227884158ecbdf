//! The `telemetry:` section: traces sent over OTLP.

use super::Compiler;
use crate::model::*;
use crate::raw::*;

impl Compiler<'_> {
    pub(super) fn telemetry(&mut self, raw: RawTelemetry) -> Option<Otlp> {
        let otlp = raw.otlp?;
        let endpoint = self.url("telemetry.otlp.endpoint", &otlp.endpoint);
        match otlp.protocol.as_deref() {
            None | Some("http/protobuf") => {}
            Some(other) => self.err(
                "telemetry.otlp.protocol",
                format!("protocol `{other}` is not supported"),
                "use `http/protobuf` (OTLP over HTTP)",
            ),
        }
        let sample = otlp.sample.unwrap_or(1.0);
        if !(0.0..=1.0).contains(&sample) {
            self.err(
                "telemetry.otlp.sample",
                format!("sample {sample} is not a fraction"),
                "use a number from 0.0 (trace nothing) to 1.0 (trace every call)",
            );
        }
        Some(Otlp {
            endpoint: endpoint?,
            sample: sample.clamp(0.0, 1.0),
        })
    }
}
