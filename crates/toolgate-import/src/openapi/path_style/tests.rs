use serde_json::json;

use super::*;

fn style(style: &str, explode: bool, schema: Value) -> PathStyle {
    let p =
        json!({"name": "x", "in": "path", "required": true, "style": style, "explode": explode});
    of(&p, &schema, Dialect::Oas30)
}

#[test]
fn each_row_of_the_style_table_is_sent_exactly_or_asked_in_a_shape_that_is() {
    let list = json!({"type": "array", "items": {"type": "string"}});
    let object = json!({"type": "object", "properties": {"R": {"type": "integer"}, "G": {"type": "integer"}}});
    // A template's comma join is the unexploded list of every style, and `simple`'s
    // exploded one.
    for (s, e) in [
        ("simple", false),
        ("simple", true),
        ("label", false),
        ("matrix", false),
    ] {
        assert_eq!(style(s, e, list.clone()), PathStyle::AsIs, "{s} {e}");
    }
    assert!(matches!(style("label", true, list.clone()), PathStyle::Text(t) if t.contains("`.`")));
    assert_eq!(style("matrix", true, list), PathStyle::OneItem);
    for (s, e, between, joiner) in [
        ("simple", false, ",", ","),
        ("label", false, ",", ","),
        ("matrix", false, ",", ","),
        ("simple", true, ",", "="),
        ("label", true, ".", "="),
    ] {
        let PathStyle::Text(how) = style(s, e, object.clone()) else {
            panic!("{s} {e}");
        };
        assert!(
            how.contains(&format!("`R{joiner}…{between}G{joiner}…`")),
            "{s} {e}: {how}"
        );
    }
    assert_eq!(
        style("matrix", true, object),
        PathStyle::Members(vec!["R".into(), "G".into()])
    );
    assert!(matches!(
        style("matrix", true, json!({"type": "object"})),
        PathStyle::Unsendable(_)
    ));
    // A scalar is itself in every style.
    assert_eq!(
        style("matrix", true, json!({"type": "integer"})),
        PathStyle::AsIs
    );
}
