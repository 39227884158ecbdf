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
    assert_eq!(style("matrix", true, list), PathStyle::Items(1));
    // Every object whose members the schema names is written member by member, between
    // the separators the table shows (`R,100,G,200`, `.R=100.G=200`, `;x=R,100,G,200`).
    let written = |s: &str, e: bool| match style(s, e, object.clone()) {
        PathStyle::Members(members, layout) => {
            assert_eq!(members, ["R", "G"], "{s} {e}");
            let values = [
                ("R".to_string(), "100".to_string()),
                ("G".to_string(), "200".to_string()),
            ];
            layout.write(&values)
        }
        other => panic!("{s} {e}: {other:?}"),
    };
    assert_eq!(written("simple", false), "R,100,G,200");
    assert_eq!(written("simple", true), "R=100,G=200");
    assert_eq!(written("label", false), ".R,100,G,200");
    assert_eq!(written("label", true), ".R=100.G=200");
    assert_eq!(written("matrix", false), ";x=R,100,G,200");
    assert_eq!(written("matrix", true), ";R=100;G=200");
    // Members the schema does not name are asked as one text, except where the name of
    // each member must stand in the path (`;name=value`).
    assert!(matches!(
        style("label", false, json!({"type": "object"})),
        PathStyle::Text(_)
    ));
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

#[test]
fn an_exploded_matrix_list_sends_as_many_items_as_it_needs_up_to_a_handful() {
    let list =
        |least: u64| json!({"type": "array", "items": {"type": "string"}, "minItems": least});
    assert_eq!(style("matrix", true, list(0)), PathStyle::Items(1));
    assert_eq!(style("matrix", true, list(2)), PathStyle::Items(2));
    assert_eq!(
        style("matrix", true, list(MOST_MATRIX_ITEMS)),
        PathStyle::Items(MOST_MATRIX_ITEMS)
    );
    assert!(matches!(
        style("matrix", true, list(MOST_MATRIX_ITEMS + 1)),
        PathStyle::Unsendable(why) if why.contains("at least 9 items")
    ));
}
