use super::*;

#[test]
fn numbers_off_the_scale_are_unread() {
    let n = |v: u64| Number::from(v);
    assert_eq!(read(Scale::UptimeRobot, &n(3)).0, Health::Unknown);
    assert_eq!(read(Scale::UptimeRobot, &n(9)).0, Health::Down);
    assert_eq!(status_io(700), None);
    assert_eq!(status_io(0), None);
    // Kuma's pending and maintenance only in a beat that carries Kuma's own fields.
    let plain = Map::new();
    assert_eq!(heartbeat(&plain, &n(2)), None);
    assert_eq!(heartbeat(&plain, &n(7)), None);
    let mut beat = Map::new();
    beat.insert("msg".to_owned(), Value::String(String::new()));
    assert_eq!(heartbeat(&beat, &n(2)).map(|r| r.0), Some(Health::Degraded));
    assert_eq!(heartbeat(&beat, &n(4)), None);
}
