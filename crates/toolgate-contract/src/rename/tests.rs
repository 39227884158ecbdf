use super::*;

fn c(key: &str, types: Types) -> Candidate<'_> {
    Candidate { key, types }
}
fn no_values(_: usize, _: usize) -> bool {
    false
}

#[test]
fn lone_pair_of_same_type_is_a_rename() {
    let p = pair(
        &[c("snippet", Types::STRING)],
        &[c("excerpt", Types::STRING)],
        &no_values,
    );
    assert_eq!(
        p,
        vec![Pair {
            missing: 0,
            added: 0,
            why: WHY_ONLY
        }]
    );
}

#[test]
fn different_types_never_pair() {
    let p = pair(
        &[c("snippet", Types::STRING)],
        &[c("snippets", Types::ARRAY)],
        &no_values,
    );
    assert!(p.is_empty());
}

#[test]
fn case_styles_pair() {
    for (a, b) in [
        ("snippet", "Snippet"),
        ("published_at", "publishedAt"),
        ("user-id", "USER_ID"),
    ] {
        let p = pair(
            &[c(a, Types::STRING)],
            &[c(b, Types::STRING), c("zzz", Types::STRING)],
            &no_values,
        );
        assert_eq!(
            p,
            vec![Pair {
                missing: 0,
                added: 0,
                why: WHY_CASE
            }],
            "{a} -> {b}"
        );
    }
}

#[test]
fn two_by_two_unrelated_stay_unpaired() {
    let m = [c("snippet", Types::STRING), c("title", Types::STRING)];
    let a = [c("excerpt", Types::STRING), c("heading", Types::STRING)];
    assert!(pair(&m, &a, &no_values).is_empty());
}

#[test]
fn similar_names_win_among_several() {
    let m = [c("published", Types::STRING), c("title", Types::STRING)];
    let a = [c("published_date", Types::STRING), c("foo", Types::STRING)];
    let p = pair(&m, &a, &no_values);
    // Once `published` is paired by name, title/foo are the lone pair left.
    let expected = vec![
        Pair {
            missing: 0,
            added: 0,
            why: WHY_SIMILAR,
        },
        Pair {
            missing: 1,
            added: 1,
            why: WHY_ONLY,
        },
    ];
    assert_eq!(p, expected);
}

#[test]
fn tie_is_not_a_rename() {
    let m = [c("name", Types::STRING)];
    let a = [c("Name", Types::STRING), c("NAME", Types::STRING)];
    assert!(pair(&m, &a, &no_values).is_empty());
}

#[test]
fn equal_values_pair_even_with_rivals() {
    let m = [c("a", Types::STRING), c("b", Types::STRING)];
    let a = [c("x", Types::STRING), c("y", Types::STRING)];
    let p = pair(&m, &a, &|mi, ai| mi == 1 && ai == 0);
    // After b→x, a and y are the only pair left.
    let expected = vec![
        Pair {
            missing: 0,
            added: 1,
            why: WHY_ONLY,
        },
        Pair {
            missing: 1,
            added: 0,
            why: WHY_VALUES,
        },
    ];
    assert_eq!(p, expected);
}
