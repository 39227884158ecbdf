//! A dependency's last hour as an inline SVG sparkline: the mean latency per minute as
//! a line, the baseline as a dashed line, minutes with failures as red ticks on the
//! floor. Drawn on the server from `/admin/health`'s `latency_history`, so the browser
//! runs no charting code and the page's Content-Security-Policy stays as it is.

use std::fmt::Write as _;

use serde_json::Value;

use super::layout::esc;

/// Drawing width and height (CSS pixels; the SVG scales with its box).
const W: f64 = 120.0;
const H: f64 = 28.0;

/// The sparkline of `history` (the report's `latency_history`: one entry per minute,
/// oldest first, `null` for a minute without replies), or a dash when it holds nothing.
pub fn sparkline(dependency: &str, history: &Value) -> String {
    let Some(minutes) = history.as_array().filter(|m| !m.is_empty()) else {
        return "–".into();
    };
    let frame = Frame::of(minutes);
    let calls: u64 = minutes.iter().filter_map(|m| m["calls"].as_u64()).sum();
    if calls == 0 {
        return "–".into();
    }
    let dots = lone_dots(minutes, frame);
    let ticks = failure_ticks(minutes, frame);
    let summary = summary(dependency, minutes, calls);
    format!(
        "<svg class=\"spark\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" aria-label=\"{label}\">\
         <title>{label}</title><path class=\"spark-base\" d=\"{base}\"/><path class=\"spark-lat\" d=\"{lat}\"/>{dots}{ticks}</svg>",
        label = esc(&summary),
        base = line(minutes, frame, "baseline_ms").trim(),
        lat = line(minutes, frame, "mean_ms").trim(),
    )
}

/// Where minutes and latencies fall in the chart: the number of minutes across, the
/// highest latency up.
#[derive(Clone, Copy)]
struct Frame {
    n: usize,
    top: f64,
}

impl Frame {
    /// The frame of `minutes`: as many as there are, up to their highest finite mean or
    /// baseline.
    fn of(minutes: &[Value]) -> Self {
        let top = minutes
            .iter()
            .flat_map(|m| [m["mean_ms"].as_f64(), m["baseline_ms"].as_f64()])
            .flatten()
            .filter(|v| v.is_finite())
            .fold(0.0_f64, f64::max);
        Frame {
            n: minutes.len(),
            top,
        }
    }

    /// Minute `i`'s x.
    fn x(self, i: usize) -> f64 {
        if self.n > 1 {
            i as f64 * W / (self.n - 1) as f64
        } else {
            W
        }
    }

    /// A latency's y.
    fn y(self, ms: f64) -> f64 {
        // Leave a pixel at the top and two at the bottom for the failure ticks.
        if self.top > 0.0 {
            1.0 + (H - 4.0) * (1.0 - (ms / self.top).clamp(0.0, 1.0))
        } else {
            H - 3.0
        }
    }
}

/// The path of one series (`mean_ms` or `baseline_ms`) across the minutes.
fn line(minutes: &[Value], frame: Frame, key: &str) -> String {
    let mut d = String::new();
    let mut pen_down = false;
    for (i, m) in minutes.iter().enumerate() {
        match m[key].as_f64().filter(|v| v.is_finite()) {
            Some(v) => {
                let _ = write!(
                    d,
                    "{}{:.1} {:.1}",
                    if pen_down { " L" } else { " M" },
                    frame.x(i),
                    frame.y(v)
                );
                pen_down = true;
            }
            // A minute without replies is a gap in the line, not a zero.
            None => pen_down = false,
        }
    }
    d
}

/// A lone minute is a point: draw it as a dot so it shows.
fn lone_dots(minutes: &[Value], frame: Frame) -> String {
    minutes
        .iter()
        .enumerate()
        .filter(|(i, m)| {
            m["mean_ms"].is_f64()
                && (*i == 0 || minutes[i - 1]["mean_ms"].is_null())
                && minutes
                    .get(i + 1)
                    .is_none_or(|next| next["mean_ms"].is_null())
        })
        .map(|(i, m)| {
            format!(
                "<circle class=\"spark-lat\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"1.2\"/>",
                frame.x(i),
                frame.y(m["mean_ms"].as_f64().unwrap_or(0.0))
            )
        })
        .collect()
}

/// A tick at the bottom under every minute with a failure.
fn failure_ticks(minutes: &[Value], frame: Frame) -> String {
    minutes
        .iter()
        .enumerate()
        .filter(|(_, m)| m["failed"].as_u64().unwrap_or(0) > 0)
        .map(|(i, _)| {
            format!(
                "<rect class=\"spark-fail\" x=\"{:.1}\" y=\"{:.1}\" width=\"1.5\" height=\"2\"/>",
                frame.x(i) - 0.75,
                H - 2.0
            )
        })
        .collect()
}

/// The chart in words: the replies of the hour and the latest minute's mean beside its
/// baseline.
fn summary(dependency: &str, minutes: &[Value], calls: u64) -> String {
    let last = minutes.iter().rev().find(|m| m["mean_ms"].is_f64());
    match last {
        Some(m) => {
            let base = m["baseline_ms"]
                .as_f64()
                .map_or("no baseline yet".into(), |b| format!("baseline {b:.0} ms"));
            format!(
                "{}: {calls} replies in the last hour; latest minute mean {:.0} ms, {base}",
                dependency,
                m["mean_ms"].as_f64().unwrap_or(0.0)
            )
        }
        None => format!("{dependency}: {calls} replies in the last hour, none successful"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_line_breaks_at_gaps_and_the_baseline_is_drawn_beside_it() {
        let mut minutes = vec![Value::Null; 60];
        minutes[50] = json!({"calls": 3, "failed": 0, "mean_ms": 20.0, "baseline_ms": 20.0});
        minutes[51] = json!({"calls": 3, "failed": 1, "mean_ms": 40.0, "baseline_ms": 20.0});
        minutes[58] = json!({"calls": 2, "failed": 0, "mean_ms": 80.0, "baseline_ms": 21.0});
        minutes[59] = json!({"calls": 1, "failed": 0, "mean_ms": 80.0, "baseline_ms": 21.0});
        let svg = sparkline("search<api>", &json!(minutes));
        assert!(svg.starts_with("<svg class=\"spark\""), "{svg}");
        let lat = svg.split("class=\"spark-lat\" d=\"").nth(1).unwrap();
        let lat = &lat[..lat.find('"').unwrap()];
        assert_eq!(
            lat.matches('M').count(),
            2,
            "two runs, a gap between: {lat}"
        );
        assert_eq!(lat.matches('L').count(), 2, "{lat}");
        // The top of the scale is the highest mean: 80 ms is drawn at the top.
        assert!(lat.ends_with("120.0 1.0"), "{lat}");
        assert!(svg.contains("class=\"spark-base\" d=\"M"), "{svg}");
        assert_eq!(
            svg.matches("spark-fail").count(),
            1,
            "one minute with failures"
        );
        assert!(
            svg.contains("search&lt;api&gt;: 9 replies in the last hour; latest minute mean 80 ms, baseline 21 ms"),
            "{svg}"
        );
        assert!(!svg.contains("<api>"));
    }

    #[test]
    fn no_replies_in_the_hour_is_a_dash_and_a_lone_minute_is_a_dot() {
        assert_eq!(sparkline("a", &json!([null, null])), "–");
        assert_eq!(sparkline("a", &Value::Null), "–");
        let svg = sparkline(
            "a",
            &json!([null, {"calls": 1, "failed": 0, "mean_ms": 5.0}, null]),
        );
        assert!(svg.contains("<circle class=\"spark-lat\""), "{svg}");
        assert!(svg.contains("no baseline yet"), "{svg}");
        let failed = sparkline("a", &json!([{"calls": 2, "failed": 2}]));
        assert!(
            failed.contains("none successful") && failed.contains("spark-fail"),
            "{failed}"
        );
    }
}
