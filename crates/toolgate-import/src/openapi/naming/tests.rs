use super::*;

#[test]
fn operation_ids_are_sanitised() {
    assert_eq!(
        base_name(Some("chat.postMessage"), "post", "/x"),
        "chat.postMessage"
    );
    assert_eq!(
        base_name(Some("get user/{id} (v2)"), "get", "/x"),
        "get_user_id_v2"
    );
    assert_eq!(
        base_name(Some("  "), "GET", "/users/{id}/keys"),
        "get_users_by_id_keys"
    );
    assert_eq!(base_name(None, "get", "/"), "get");
    assert_eq!(sanitize("ünïcode"), "n_code");
    assert_eq!(sanitize("___"), "operation");
    let long = "a".repeat(100);
    assert_eq!(sanitize(&long).len(), MAX_LEN);
}

#[test]
fn collisions_get_numbered_suffixes_within_the_limit() {
    let mut names = Names::default();
    names.reserve("hand_written");
    assert_eq!(names.claim("list"), "list");
    assert_eq!(names.claim("list"), "list_2");
    assert_eq!(names.claim("list"), "list_3");
    assert_eq!(names.claim("hand_written"), "hand_written_2");
    assert_eq!(names.claim("dependency_health"), "dependency_health_2");
    let long = "b".repeat(MAX_LEN);
    assert_eq!(names.claim(&long), long);
    let second = names.claim(&long);
    assert_eq!(second.len(), MAX_LEN);
    assert!(second.ends_with("_2"));
}

#[test]
fn long_names_keep_their_head_and_distinguishing_tail() {
    // Google's: only the last word tells the two apart.
    let start = "dialogflow.projects.locations.agents.environments.experiments.start";
    let stop = "dialogflow.projects.locations.agents.environments.experiments.stop";
    let (a, b) = (sanitize(start), sanitize(stop));
    assert_ne!(a, b);
    for (name, end) in [(&a, "experiments.start"), (&b, "experiments.stop")] {
        assert!(name.len() <= MAX_LEN, "{name}");
        assert!(name.starts_with("dialogflow.projects"), "{name}");
        assert!(name.ends_with(end), "{name}");
    }
    // Cut where words end, never inside one.
    let camel =
        "GetConceptEmployeePayGradeMetaDataByPayrollAdministrationIdAndPayscaleKeyAndPayGradeKey";
    let short = sanitize(camel);
    assert!(short.len() <= MAX_LEN, "{short}");
    assert!(short.ends_with("AndPayGradeKey"), "{short}");
    let parts: Vec<&str> = short.split('_').collect();
    assert_eq!(parts.len(), 3, "{short}");
    assert!(
        camel.starts_with(parts[0]) && camel.ends_with(parts[2]),
        "{short}"
    );
    assert!(
        parts[0].ends_with("Data") || parts[0].ends_with("Meta") || parts[0].ends_with("Grade"),
        "{short}"
    );
    // The same on every import, whatever else the spec holds.
    assert_eq!(sanitize(start), a);
    let mut names = Names::default();
    names.reserve(&a);
    assert_eq!(names.claim(&clean(stop)), b);
    // Two names differing only in the middle still differ.
    let x = format!("{}_alpha_{}", "h".repeat(40), "t".repeat(40));
    let y = format!("{}_bravo_{}", "h".repeat(40), "t".repeat(40));
    assert_ne!(sanitize(&x), sanitize(&y));
    // A name that fits is untouched.
    assert_eq!(sanitize(&"c".repeat(MAX_LEN)), "c".repeat(MAX_LEN));
}

#[test]
fn a_numbered_long_name_keeps_its_tail_and_number() {
    let id = "List_all_NoteAttachment_for_User_MonetaryAccount_SchedulePaymentBatch";
    let mut names = Names::default();
    let first = names.claim(id);
    let second = names.claim(id);
    assert_ne!(first, second);
    assert!(first.ends_with("SchedulePaymentBatch"), "{first}");
    assert!(second.ends_with("SchedulePaymentBatch_2"), "{second}");
    assert!(second.len() <= MAX_LEN, "{second}");
}

#[test]
fn an_opaque_operation_id_gives_way_to_method_and_path() {
    for id in [
        "5476364f031f5909e4fe3314",
        "58acde292109180bdcacc40d",
        "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
    ] {
        assert_eq!(
            base_name(Some(id), "GET", "/Rail/Lines"),
            "get_Rail_Lines",
            "{id}"
        );
    }
    // A name that happens to use hex letters is still a name.
    assert_eq!(base_name(Some("addFeed"), "GET", "/x"), "addFeed");
    assert_eq!(base_name(Some("deadbeef"), "GET", "/x"), "deadbeef");
}

#[test]
fn an_operation_id_with_no_latin_letter_is_named_from_method_and_path() {
    assert_eq!(
        base_name(Some("获取用户"), "GET", "/users/{id}"),
        "get_users_by_id"
    );
    assert_eq!(
        base_name(Some("получитьЗаказ"), "get", "/orders"),
        "get_orders"
    );
    assert_eq!(base_name(Some("--"), "delete", "/items"), "delete_items");
    // One with a Latin word keeps it.
    assert_eq!(base_name(Some("获取user"), "get", "/x"), "user");
}
