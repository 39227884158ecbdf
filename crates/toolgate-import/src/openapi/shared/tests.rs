use serde_json::{Value, json};

use crate::openapi::{Options, Outcome, run};

/// Orders reach a customer, a customer its orders (recursion through two components),
/// and both an address; a product is reached by one operation only.
const SHOP: &str = r#"
openapi: 3.0.3
info: {title: Shop, version: 1.0.0}
servers: [{url: 'https://shop.example.com'}]
components:
  schemas:
    Address:
      type: object
      required: [city]
      properties: {city: {type: string}, zip: {type: string}}
    Customer:
      type: object
      required: [id, address]
      properties:
        id: {type: string}
        address: {$ref: '#/components/schemas/Address'}
        orders: {type: array, items: {$ref: '#/components/schemas/Order'}}
    Order:
      type: object
      required: [id, buyer]
      properties:
        id: {type: string}
        buyer: {$ref: '#/components/schemas/Customer'}
        ship_to: {$ref: '#/components/schemas/Address'}
    Product:
      type: object
      required: [sku]
      properties: {sku: {type: string}}
paths:
  /customers/{id}:
    get:
      operationId: get_customer
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Customer'}}}}}
  /orders:
    get:
      operationId: list_orders
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, required: [data], properties: {data: {type: array, items: {$ref: '#/components/schemas/Order'}}}}
  /products/{sku}:
    get:
      operationId: get_product
      parameters: [{name: sku, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Product'}}}}}
"#;

fn import(spec: &str, existing: Option<String>) -> (Value, Outcome, toolgate_config::Config) {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-shared-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("spec.yaml");
    std::fs::write(&file, spec).unwrap();
    let out = run(&Options {
        spec: file,
        owner: Some("team@mine.example".into()),
        existing,
        ..Options::default()
    })
    .unwrap();
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    let env = |_: &str| Some("k".to_string());
    let config = toolgate_config::parse(&dir.join("t.yaml"), &out.yaml, &dir, &env)
        .unwrap_or_else(|e| panic!("{e}\n{}", out.yaml));
    let _ = std::fs::remove_dir_all(&dir);
    (doc, out, config)
}

#[test]
fn components_are_written_once_and_every_contract_refers_to_them() {
    let (doc, out, config) = import(SHOP, None);
    let set = doc["schemas"]["shop"].as_object().unwrap();
    let names: Vec<&str> = set.keys().map(String::as_str).collect();
    assert_eq!(names, ["Address", "Customer", "Order", "Product"]);
    // Components refer to each other through the set, recursion included.
    assert_eq!(
        set["Order"]["properties"]["buyer"],
        json!({"$ref": "toolgate:schemas/shop/Customer"})
    );
    assert_eq!(
        doc["tools"]["get_customer"]["contract"]["response_schema"],
        json!({"$ref": "toolgate:schemas/shop/Customer"})
    );
    assert!(!out.yaml.contains("$defs"), "{}", out.yaml);
    // Each contract enforces its whole schema through the shared set: the address of
    // an order's buyer, three components down.
    let orders = &config.tools["list_orders"].contract.response;
    let good = json!({"data": [{"id": "o1", "buyer": {"id": "c1", "address": {"city": "Oslo"}}}]});
    orders.check(&good).unwrap();
    let renamed =
        json!({"data": [{"id": "o1", "buyer": {"id": "c1", "address": {"town": "Oslo"}}}]});
    let drift = orders.check(&renamed).unwrap_err();
    assert!(
        drift.summary().contains("data[].buyer.address.city"),
        "{}",
        drift.summary()
    );
    // What a client is shown names the components instead of repeating them.
    let shown = &config.tools["get_customer"].contract.output_schema;
    assert_eq!(
        shown["properties"]["address"],
        json!({"title": "Address", "type": "object"})
    );
    assert!(
        !Value::Object(shown.clone())
            .to_string()
            .contains("toolgate:")
    );
}

#[test]
fn re_import_reports_a_changed_component_for_the_tools_that_reach_it_only() {
    let (_, first, _) = import(SHOP, None);
    let changed = SHOP.replace(
        "required: [city]\n      properties: {city: {type: string}, zip: {type: string}}",
        "required: [town]\n      properties: {town: {type: string}, zip: {type: string}}",
    );
    assert_ne!(changed, SHOP);
    let (doc, again, _) = import(&changed, Some(first.yaml.clone()));
    let line = |tool: &str| {
        again
            .report
            .iter()
            .find(|l| l.starts_with(&format!("{tool}: contract")))
            .cloned()
    };
    // Both reach the address, through one or two other components.
    for tool in ["get_customer", "list_orders"] {
        let l = line(tool).unwrap_or_else(|| panic!("{tool}: {:?}", again.report));
        assert!(l.contains("1.0 → 2.0") && l.contains("city"), "{l}");
    }
    assert_eq!(line("get_product"), None, "{:?}", again.report);
    assert_eq!(doc["tools"]["get_product"]["contract"]["version"], "1.0");
    assert!(doc["schemas"]["shop"]["Address"]["properties"]["town"].is_object());
    // The set is replaced, not duplicated.
    assert_eq!(
        again.yaml.matches("\n    Address:\n").count(),
        1,
        "{}",
        again.yaml
    );
}

#[test]
fn another_apis_set_is_kept_by_an_import_into_the_same_file() {
    let (_, first, _) = import(SHOP, None);
    let other = SHOP
        .replace("title: Shop", "title: Store")
        .replace("operationId: ", "operationId: store_");
    let (doc, _, config) = import(&other, Some(first.yaml));
    assert!(doc["schemas"]["shop"]["Customer"].is_object());
    assert!(doc["schemas"]["store"]["Customer"].is_object());
    assert!(
        config.tools["get_customer"]
            .contract
            .response
            .names_required()
    );
    assert!(
        config.tools["store_get_customer"]
            .contract
            .response
            .names_required()
    );
}
