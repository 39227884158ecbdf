//! Zones a time of day is written in: UTC by name (`UTC`, `GMT`, `Z`), an offset from it
//! (`UTC+3`, `GMT-05:00`, `+03:00`, `+0530`), and the abbreviations of zones whose offset
//! is the same all year or whose summer time has a name of its own (`CET` and `CEST`,
//! Moscow's `MSK`, written `МСК` in Russian, `PST` and `PDT`). A name several zones share
//! (`CST`: China's or the American Central; `IST`: India's, Ireland's or Israel's; `BST`)
//! names none, and a time of day in it gives no wait, as one without a zone gives none.

/// Zone abbreviations and their offsets east of UTC in minutes, lowercase; each
/// commented with where it is used.
const NAMED: [(&str, i32); 39] = [
    ("utc", 0),
    ("gmt", 0),
    ("z", 0),
    ("wet", 0),    // Western Europe, winter
    ("west", 60),  // Western Europe, summer
    ("cet", 60),   // Central Europe, winter
    ("cest", 120), // Central Europe, summer
    ("mez", 60),   // Central Europe, winter, in German
    ("mesz", 120), // Central Europe, summer, in German
    ("eet", 120),  // Eastern Europe, winter
    ("eest", 180), // Eastern Europe, summer
    ("msk", 180),  // Moscow
    ("мск", 180),  // Moscow, in Russian
    ("trt", 180),  // Turkey
    ("wat", 60),   // West Africa
    ("cat", 120),  // Central Africa
    ("sast", 120), // South Africa
    ("eat", 180),  // East Africa
    ("pkt", 300),  // Pakistan
    ("npt", 345),  // Nepal
    ("ict", 420),  // Indochina
    ("wib", 420),  // Western Indonesia
    ("hkt", 480),  // Hong Kong
    ("sgt", 480),  // Singapore
    ("jst", 540),  // Japan
    ("kst", 540),  // Korea
    ("aest", 600), // Eastern Australia, winter
    ("aedt", 660), // Eastern Australia, summer
    ("nzst", 720), // New Zealand, winter
    ("nzdt", 780), // New Zealand, summer
    ("brt", -180), // Brasília
    ("art", -180), // Argentina
    ("est", -300), // Eastern North America, winter
    ("edt", -240), // Eastern North America, summer
    ("cdt", -300), // Central North America, summer
    ("mst", -420), // Mountain North America, winter
    ("mdt", -360), // Mountain North America, summer
    ("pst", -480), // Pacific North America, winter
    ("pdt", -420), // Pacific North America, summer
];

/// The offset east of UTC, in minutes, of the zone `word` (lowercase) names; `None` for
/// a word that names no zone or one several zones share.
pub(super) fn offset_minutes(word: &str) -> Option<i32> {
    let word = word.trim_start_matches('(').trim_end_matches(')');
    if let Some((_, offset)) = NAMED.iter().find(|(name, _)| *name == word) {
        return Some(*offset);
    }
    let signed = ["utc", "gmt"]
        .iter()
        .find_map(|name| word.strip_prefix(name))
        .unwrap_or(word);
    let (sign, digits) = match signed.as_bytes().first()? {
        b'+' => (1, &signed[1..]),
        b'-' => (-1, &signed[1..]),
        _ => return None,
    };
    let (hours, minutes) = match digits.split_once(':') {
        Some(parts) => parts,
        None if digits.len() == 4 => digits.split_at(2),
        None => (digits, "00"),
    };
    let two_digits = |p: &str| (1..=2).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit());
    if !two_digits(hours) || !two_digits(minutes) {
        return None;
    }
    let (hours, minutes): (i32, i32) = (hours.parse().ok()?, minutes.parse().ok()?);
    (hours <= 14 && minutes < 60).then_some(sign * (hours * 60 + minutes))
}

#[cfg(test)]
mod tests {
    use super::offset_minutes;

    #[test]
    fn a_zone_is_utc_an_offset_from_it_or_a_name_one_zone_has() {
        for (word, want) in [
            ("utc", Some(0)),
            ("(gmt)", Some(0)),
            ("+00:00", Some(0)),
            ("utc+3", Some(180)),
            ("gmt-05:00", Some(-300)),
            ("+0530", Some(330)),
            ("utc+5:45", Some(345)),
            ("cet", Some(60)),
            ("мск", Some(180)),
            ("(мск)", Some(180)),
            ("pdt", Some(-420)),
            // Names several zones share, offsets past any zone's, and words.
            ("cst", None),
            ("ist", None),
            ("bst", None),
            ("utc+25", None),
            ("+3000", None),
            ("uhr", None),
            ("utc+", None),
        ] {
            assert_eq!(offset_minutes(word), want, "{word}");
        }
    }
}
