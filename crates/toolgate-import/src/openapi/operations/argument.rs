//! A parameter the model gives: its argument, and where the request writes it (path,
//! query, header or form field), in the style the description asks for.

use serde_json::{Value, json};

use super::super::list_format;
use super::super::text::trim_text;
use super::builder::Builder;
use super::parameters::Param;
use super::{Arg, QueryStyle, Skip, query_style, rename_in_key_query, unique_arg};

impl Builder<'_> {
    /// The parameter as an argument, written where its location says.
    pub(super) fn argument(&mut self, param: Param<'_>, raw_schema: Value) -> Result<(), Skip> {
        let Param {
            file: pfile,
            p,
            name,
            location,
            required,
        } = param;
        let default = raw_schema.get("default").cloned();
        let arg = unique_arg(&mut self.used, name, location);
        let mut schema = self.conv.part(pfile, &raw_schema);
        if let (Value::Object(m), Some(Value::String(d))) = (&mut schema, p.get("description")) {
            m.entry("description")
                .or_insert_with(|| Value::String(trim_text(d, 300)));
        }
        // A deprecated parameter is still sent when given; the model is told to avoid it,
        // and what the vendor says replaces it (`x-deprecated: "Use cursor"`,
        // `x-is-deprecated: true`, `x-deprecatedMessage`), read as an operation's is.
        if let (Value::Object(m), Some(d)) = (
            &mut schema,
            p.as_object().and_then(super::deprecation::of_map),
        ) {
            m.insert("deprecated".into(), Value::Bool(true));
            if let Some(said) = d.member_sentence() {
                crate::openapi::schema::append_description(m, &said);
            }
        }
        let placeholder = Value::String(format!("{{{arg}}}"));
        // Weatherbit declares `lat` of `/alerts?lat={lat}` as a path parameter: it
        // fills the key's query, wherever it is declared.
        let in_key_query = matches!(location, "path" | "query")
            && rename_in_key_query(&mut self.key_query, name, &arg);
        match location {
            "path" => {
                if !self.path_parameter(param, &raw_schema, &arg, &mut schema)? {
                    return Ok(());
                }
            }
            "query" if in_key_query => {}
            "query" => {
                let Some(value) =
                    self.query_value(param, &raw_schema, &arg, &mut schema, placeholder)?
                else {
                    return Ok(());
                };
                let value = self.reserved_query_value(p, name, &arg, value);
                self.query.insert(name.to_string(), value);
            }
            "header" => {
                self.header_object(param, &raw_schema, &mut schema);
                self.header_list(param, &raw_schema, &mut schema);
                self.headers.insert(name.to_string(), placeholder);
            }
            "formData" => self.form_field(p, name, &arg, required, &raw_schema, &mut schema),
            other => {
                self.notes
                    .push(format!("parameter `{name}` in `{other}` is not sent"));
                return Ok(());
            }
        }
        // A documented default is what the API uses when the value is left out, so
        // the model need not give it (only path parameters are always needed).
        let required = required && (location == "path" || default.is_none());
        self.args.push(Arg {
            name: arg,
            schema,
            required,
        });
        Ok(())
    }

    /// A query value whose parameter says `allowReserved: true` is written `{+arg}`, so
    /// RFC 3986's reserved characters reach the server as the model wrote them (an OData
    /// `$filter`'s `/` and `:`); the renderer still encodes `&`, `#` and `%`, which would
    /// add a parameter or cut the query short. An exploded list (`arg*`) keeps its items
    /// encoded, with a note: each item is a pair of its own and a template has no
    /// reserved form of it.
    fn reserved_query_value(&mut self, p: &Value, name: &str, arg: &str, value: Value) -> Value {
        if p.get("allowReserved").and_then(Value::as_bool) != Some(true) {
            return value;
        }
        if value.as_str() == Some(format!("{{{arg}}}").as_str()) {
            return Value::String(format!("{{+{arg}}}"));
        }
        self.notes.push(format!(
            "query parameter `{name}` allows reserved characters, but its list items are each a parameter of their own and are sent percent-encoded"
        ));
        value
    }

    /// The query template's value for the argument, in the style the parameter asks
    /// for; a list or object style a template cannot write makes the argument one text
    /// the model joins, or, when toolgate cannot send it at all, leaves an optional
    /// parameter out (`None`) and skips the operation for a required one.
    fn query_value(
        &mut self,
        param: Param<'_>,
        raw_schema: &Value,
        arg: &str,
        schema: &mut Value,
        placeholder: Value,
    ) -> Result<Option<Value>, Skip> {
        let Param {
            file: pfile,
            p,
            name,
            required,
            ..
        } = param;
        // Left out, one with a default is what the API does without it.
        let required = required && raw_schema.get("default").is_none();
        let Self {
            cx, conv, notes, ..
        } = self;
        // A list or object named by `$ref` is styled as what it refers to.
        let styled = conv
            .refs_mut()
            .deref(pfile, raw_schema)
            .map_or_else(|_| raw_schema.clone(), |(_, s)| s);
        match query_style(p, &styled, cx.dialect) {
            QueryStyle::Repeat => Ok(Some(Value::String(format!("{{{arg}*}}")))),
            QueryStyle::Comma => Ok(Some(placeholder)),
            QueryStyle::Joined(separator, how) => {
                // A template joins a list with commas only: the model writes the
                // values as one text, joined the way the API reads them.
                list_format::as_joined_text(schema, separator);
                notes.push(format!(
                    "query parameter `{name}` is {how}: the model writes its values as one text, separated by {separator}"
                ));
                Ok(Some(placeholder))
            }
            QueryStyle::Pairs => {
                object_as_text(
                    schema,
                    &styled,
                    "each member's name and value, all separated by commas",
                    "name,value,name,value",
                );
                notes.push(format!(
                    "query parameter `{name}` is an object with `explode: false`: the model writes its members as one text, `name,value,name,value`"
                ));
                Ok(Some(placeholder))
            }
            // Sent comma-separated or as JSON, the server would read other values than
            // the model gave (one item holding commas, a member named `{"a"`): a
            // required one skips the operation, an optional one is not sent.
            QueryStyle::Unsupported(how) if required => Err(Skip(format!(
                "needs the query parameter `{name}`, which is {how}, a serialisation toolgate cannot send"
            ))),
            QueryStyle::Unsupported(how) => {
                notes.push(format!(
                    "the optional query parameter `{name}` is not sent: it is {how}, a serialisation toolgate cannot send"
                ));
                Ok(None)
            }
        }
    }

    /// The schema a header's style applies to, its `$ref` followed; none for a header
    /// described by `content`, which is its media type's text and stays as it is.
    fn styled_header_schema(&mut self, param: &Param<'_>, raw_schema: &Value) -> Option<Value> {
        if param.p.get("content").is_some() {
            return None;
        }
        Some(
            self.conv
                .refs_mut()
                .deref(param.file, raw_schema)
                .map_or_else(|_| raw_schema.clone(), |(_, s)| s),
        )
    }

    /// A header holding an object is `style: simple`, the only style a header has:
    /// `R,100,G,200`, or `R=100,G=200` exploded (OpenAPI 3.1 § 4.8.12.4). A template
    /// writes an object as JSON, so the model writes the members as that text. A
    /// header described by `content` is its media type's text (JSON) and stays an object.
    fn header_object(&mut self, param: Param<'_>, raw_schema: &Value, schema: &mut Value) {
        let Param { p, name, .. } = param;
        let Some(styled) = self.styled_header_schema(&param, raw_schema) else {
            return;
        };
        let object = list_format::single_type(&styled) == Some("object")
            || (styled.get("type").is_none() && styled.get("properties").is_some());
        if !object {
            return;
        }
        let (form, written) = if p.get("explode").and_then(Value::as_bool) == Some(true) {
            (
                "name=value,name=value",
                "each member as `name=value`, separated by commas",
            )
        } else {
            (
                "name,value,name,value",
                "each member's name and value, all separated by commas",
            )
        };
        object_as_text(schema, &styled, written, form);
        self.notes.push(format!(
            "header parameter `{name}` is an object: the model writes its members as one text, `{form}`"
        ));
    }

    /// A header holding a list is its items joined by commas (`simple`, Swagger 2.0's
    /// `csv`), with no escape for an item's own comma: each item is held to none, so
    /// `["a", "b,c"]` is refused rather than read as three items. A Swagger 2.0 list
    /// whose `collectionFormat` names another separator is one text the model joins.
    /// A header described by `content` is its media type's text and stays as it is.
    fn header_list(&mut self, param: Param<'_>, raw_schema: &Value, schema: &mut Value) {
        let Param { p, name, .. } = param;
        let Some(styled) = self.styled_header_schema(&param, raw_schema) else {
            return;
        };
        if !list_format::is_list(&styled) {
            return;
        }
        if let Some(separator) = list_format::swagger_separator(p) {
            list_format::as_joined_text(schema, separator);
            self.notes.push(format!(
                "header parameter `{name}` is a list separated by {separator}: the model writes its values as one text, so separated"
            ));
            return;
        }
        *schema = list_format::items_without_commas(std::mem::take(schema));
    }

    /// A Swagger 2.0 `formData` field, and how a list of it is written: repeated
    /// (`multi`), comma-joined (`csv`, the default), or, for another separator, one
    /// text the model joins.
    fn form_field(
        &mut self,
        p: &Value,
        name: &str,
        arg: &str,
        required: bool,
        raw_schema: &Value,
        schema: &mut Value,
    ) {
        let Self {
            form,
            form_required,
            form_style,
            notes,
            ..
        } = self;
        form.push((name.to_string(), arg.to_string()));
        if required {
            form_required.push(arg.to_string());
        }
        if raw_schema.get("type").and_then(Value::as_str) == Some("array") {
            if let Some(separator) = list_format::swagger_separator(p) {
                // Sent as JSON text, `["a","b"]` would be one value the server
                // splits at its separator into other items than the model gave.
                list_format::as_joined_text(schema, separator);
                notes.push(format!(
                    "form field `{name}` is a list separated by {separator}: the model writes its values as one text, so separated"
                ));
                return;
            }
            let style = match p.get("collectionFormat").and_then(Value::as_str) {
                Some("multi") => "repeat",
                _ => "comma",
            };
            form_style.insert(name.to_string(), json!(style));
        }
    }
}

/// Makes the argument of an object parameter one text the model writes: `written`
/// says how in words, `form` shows it; the object's members (`styled`) are named in
/// the argument's description, after the parameter's own.
fn object_as_text(schema: &mut Value, styled: &Value, written: &str, form: &str) {
    let described = schema
        .get("description")
        .and_then(Value::as_str)
        .map(|d| format!("{d} "))
        .unwrap_or_default();
    let members = styled
        .get("properties")
        .and_then(Value::as_object)
        .map(|m| m.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>())
        .filter(|m| !m.is_empty())
        .map(|m| format!(" Members: {}.", m.join(", ")))
        .unwrap_or_default();
    *schema = json!({
        "type": "string",
        "description": format!("{described}An object written as one text: {written} (`{form}`).{members}"),
    });
}
