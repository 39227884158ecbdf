//! Durations (`250ms`, `10s`, `5m`, `1h`, `1d`) and byte sizes (`512KiB`, `8MiB`, `1000`)
//! as written in the config file.

use std::time::Duration;

/// Parses `<number><unit>` with unit `ms`, `s`, `m`, `h` or `d`; the number may have a fraction.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| {
        format!("`{text}` is not a duration; write it like `250ms`, `10s`, `5m` or `1h`")
    })?;
    let scale = match unit.trim() {
        "ms" => 0.001,
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        "" => {
            return Err(format!(
                "`{text}` has no unit; write it like `{num}s` or `{num}ms`"
            ));
        }
        other => {
            return Err(format!(
                "`{other}` is not a duration unit; use ms, s, m, h or d"
            ));
        }
    };
    let secs = value * scale;
    if !secs.is_finite() || secs > 365.0 * 86_400.0 {
        return Err(format!(
            "`{text}` is too long; the longest accepted duration is 365d"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Parses a byte size: a plain number, or with `B`, `KB`/`KiB`, `MB`/`MiB`, `GB`/`GiB`.
pub fn parse_bytes(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: usize = num
        .parse()
        .map_err(|_| format!("`{text}` is not a size; write it like `8MiB` or `500KB`"))?;
    let scale: usize = match unit.trim() {
        "" | "B" => 1,
        "KB" | "kB" => 1_000,
        "KiB" => 1 << 10,
        "MB" => 1_000_000,
        "MiB" => 1 << 20,
        "GB" => 1_000_000_000,
        "GiB" => 1 << 30,
        other => {
            return Err(format!(
                "`{other}` is not a size unit; use B, KB, KiB, MB, MiB, GB or GiB"
            ));
        }
    };
    value
        .checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let cases = [
            ("250ms", Ok(Duration::from_millis(250))),
            ("10s", Ok(Duration::from_secs(10))),
            ("1.5s", Ok(Duration::from_millis(1500))),
            ("5m", Ok(Duration::from_secs(300))),
            ("1h", Ok(Duration::from_secs(3600))),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text), want, "{text}");
        }
        assert!(parse_duration("10").unwrap_err().contains("no unit"));
        assert!(
            parse_duration("banana")
                .unwrap_err()
                .contains("not a duration")
        );
        assert!(
            parse_duration("3 weeks")
                .unwrap_err()
                .contains("not a duration unit")
        );
        assert!(
            parse_duration("99999999d")
                .unwrap_err()
                .contains("too long")
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("8MiB"), Ok(8 << 20));
        assert_eq!(parse_bytes("500KB"), Ok(500_000));
        assert_eq!(parse_bytes("1024"), Ok(1024));
        assert!(parse_bytes("8 parsecs").is_err());
        assert!(parse_bytes("99999999999999999999GiB").is_err());
    }
}
