//! An OpenAPI 3 `requestBody`: a JSON argument, the fields of a URL-encoded or
//! multipart form, or left out when it is bytes no JSON argument can carry.

use std::path::Path;

use serde_json::{Value, json};

use super::super::list_format::{as_joined_text, is_list, style_separator};
use super::super::media::{READ_AS_MULTIPART, is_form_data, is_misspelled_multipart, read_content};
use super::super::refs::Refs;
use super::builder::Builder;
use super::text::{text_body, text_media};
use super::{
    Arg, FormFieldStyle, FormFields, Skip, form_style_of, is_any, is_json, is_raw_bytes,
    is_structured, json_label, leave_out_body, unique_arg,
};

impl Builder<'_> {
    /// The request body, when the operation declares one.
    pub(super) fn request_body(&mut self) -> Result<(), Skip> {
        let Self {
            raw,
            conv,
            json_body,
            body_media,
            notes,
            text,
            ..
        } = self;
        let Some(rb) = raw.op.get("requestBody") else {
            return Ok(());
        };
        let (rfile, rb) = conv.refs_mut().deref(&raw.file, rb).map_err(Skip)?;
        let required = rb.get("required") == Some(&Value::Bool(true));
        // A media type written without its `/` (`applicationjson`) read as meant.
        let read = rb
            .get("content")
            .and_then(Value::as_object)
            .map(|c| read_content(c, notes));
        let content = read.as_ref();
        // A JSON type (or `*/*`) whose schema is a file is bytes, not a JSON value.
        let mut raw_kinds: Vec<String> = Vec::new();
        if let Some(c) = content {
            for (k, m) in c.iter().filter(|(k, _)| is_json(k)) {
                let schema = m.get("schema").cloned().unwrap_or(Value::Bool(true));
                let resolved = conv
                    .refs_mut()
                    .deref(&rfile, &schema)
                    .map(|(_, s)| s)
                    .unwrap_or(Value::Null);
                if is_raw_bytes(&resolved, is_any(k)) {
                    raw_kinds.push(k.clone());
                }
            }
        }
        let media = content.and_then(|c| {
            // A JSON type the description names before a range (`*/*`, `""`) that
            // names none.
            c.iter()
                .filter(|(k, _)| is_json(k) && !raw_kinds.contains(k))
                .min_by_key(|(k, _)| is_any(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .or_else(|| {
                    c.iter()
                        .find(|(k, _)| k.starts_with("application/x-www-form-urlencoded"))
                        .map(|(k, v)| (k.clone(), v.clone()))
                })
                // A multipart form's text fields are sent as its parts; its files never are.
                .or_else(|| {
                    c.iter()
                        .find(|(k, _)| is_form_data(k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                })
        });
        let text_choice = if media.is_none() {
            text_media(conv, &rfile, content)
        } else {
            None
        };
        match media {
            Some((kind, m)) if is_json(&kind) => {
                if kind.trim().is_empty() {
                    notes.push(
                        "the body's media type is empty (`\"\"`), which names no type: read as `*/*`, the body is sent as JSON".into(),
                    );
                }
                let schema = m.get("schema").cloned().unwrap_or(Value::Bool(true));
                let converted = conv.part(&rfile, &schema);
                let description = rb
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                *json_body = Some((converted, required, description));
                *body_media = json_label(
                    content
                        .into_iter()
                        .flat_map(|c| c.keys().map(String::as_str)),
                );
            }
            Some((kind, m)) => {
                let multipart = is_form_data(&kind);
                if multipart {
                    self.multipart = true;
                    if is_misspelled_multipart(&kind) {
                        self.notes.push(format!(
                            "the body's media type `{kind}` is {READ_AS_MULTIPART}"
                        ));
                    }
                }
                self.form_fields(&rfile, &m, required, multipart)?
            }
            None if text_choice.is_some() => {
                if let Some((media, m)) = text_choice {
                    let schema = m.get("schema").cloned().unwrap_or(Value::Bool(true));
                    let resolved = conv
                        .refs_mut()
                        .deref(&rfile, &schema)
                        .map(|(_, s)| s)
                        .unwrap_or(Value::Null);
                    let description = rb.get("description").and_then(Value::as_str);
                    *text = Some(text_body(
                        conv,
                        &rfile,
                        &schema,
                        &resolved,
                        &media,
                        required,
                        description,
                    ));
                }
            }
            None => {
                let kinds: Vec<String> = content
                    .map(|c| {
                        c.keys()
                            .map(|k| {
                                if raw_kinds.contains(k) {
                                    format!(
                                        "{} holding raw bytes",
                                        super::super::media::describe(k)
                                    )
                                } else {
                                    super::super::media::describe(k)
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                leave_out_body(&kinds, required, notes)?;
            }
        }
        Ok(())
    }

    /// A URL-encoded form body: each field an argument, structured ones in the style
    /// their `encoding` names. A multipart one likewise, but for its files: a required
    /// file skips the operation, an optional one is left out.
    fn form_fields(
        &mut self,
        rfile: &Path,
        m: &Value,
        required: bool,
        multipart: bool,
    ) -> Result<(), Skip> {
        let Self {
            conv,
            args,
            used,
            form,
            form_style,
            notes,
            ..
        } = self;
        let schema = m.get("schema").cloned().unwrap_or(Value::Bool(true));
        let mut fields = FormFields::default();
        fields
            .collect(conv.refs_mut(), rfile, &schema, 0)
            .map_err(Skip)?;
        let kind = if multipart {
            "multipart/form-data"
        } else {
            "form"
        };
        if fields.props.is_empty() {
            if required {
                return Err(Skip(format!("its required {kind} body names no fields")));
            }
            notes.push(format!(
                "the optional {kind} body names no fields: it is not sent"
            ));
        }
        let req = fields.required;
        for keyword in &fields.alternatives {
            notes.push(format!(
                "the form body is one of several field sets (`{keyword}`): the fields of all of them are arguments, required only when every set requires them"
            ));
        }
        let encoding = m.get("encoding").and_then(Value::as_object);
        for (name, sfile, ps) in &fields.props {
            let sfile = sfile.as_path();
            let resolved = conv
                .refs_mut()
                .deref(sfile, ps)
                .map(|(_, p)| p)
                .unwrap_or(Value::Null);
            // A read-only member is the server's to set (an `id`, a creation time): it
            // is no field the model is asked for, as it is no member of a JSON body.
            let read_only = |s: &Value| s.get("readOnly") == Some(&Value::Bool(true));
            if read_only(ps) || read_only(&resolved) {
                continue;
            }
            if multipart {
                let part = encoding.and_then(|e| e.get(name));
                if is_file_part(conv.refs_mut(), sfile, &resolved, part) {
                    if req.contains(name) {
                        return Err(Skip(format!(
                            "uploads a file (multipart/form-data field `{name}`)"
                        )));
                    }
                    notes.push(format!(
                        "the optional file field `{name}` is not sent: toolgate sends no file uploads"
                    ));
                    continue;
                }
            }
            let mut schema = conv.part(sfile, ps);
            // A field the encoding styles is styled whatever its schema's shape: Stripe's
            // lists are `anyOf: [array, ""]` (an empty string unsets them), and a list
            // given there is still sent in the declared style, never as JSON text.
            let declared = encoding.and_then(|e| e.get(name));
            let structured = is_structured(&resolved)
                || ["anyOf", "oneOf"].iter().any(|k| {
                    resolved
                        .get(*k)
                        .and_then(Value::as_array)
                        .is_some_and(|branches| branches.iter().any(is_structured))
                });
            if !multipart && (structured || declared.is_some()) {
                match form_style_of(declared) {
                    Ok(FormFieldStyle::Template(st)) => {
                        form_style.insert(name.clone(), json!(st));
                    }
                    Ok(FormFieldStyle::Json) => {}
                    // A scalar is written as itself, whatever the style.
                    Err(_) if !structured => {}
                    Err(style) => {
                        let separator = style_separator(&style).filter(|_| is_list(&resolved));
                        if let Some(separator) = separator {
                            // Sent as JSON text, `["a","b"]` would be one value the
                            // server splits at its separator into other items.
                            as_joined_text(&mut schema, separator);
                            notes.push(format!(
                                "form field `{name}` is a list separated by {separator} (`style: {style}`): the model writes its values as one text, so separated"
                            ));
                        } else if req.contains(name) {
                            return Err(Skip(format!(
                                "needs the form field `{name}`, which is `style: {style}`, a serialisation toolgate cannot send"
                            )));
                        } else {
                            notes.push(format!(
                                "the optional form field `{name}` is not sent: it is `style: {style}`, a serialisation toolgate cannot send"
                            ));
                            continue;
                        }
                    }
                }
            }
            let arg = unique_arg(used, name, "body");
            let is_req = req.contains(name);
            form.push((name.clone(), arg.clone()));
            args.push(Arg {
                name: arg,
                schema,
                required: is_req,
            });
        }
        Ok(())
    }
}

/// Whether a multipart field is a file, which no argument can carry: a binary string
/// (`format: binary`, 2.0's `type: file`) or a list of them, or a part whose
/// `encoding.contentType` names neither text nor JSON (`image/png`).
fn is_file_part(refs: &mut Refs, file: &Path, field: &Value, encoding: Option<&Value>) -> bool {
    let declared = encoding
        .and_then(|e| e.get("contentType"))
        .and_then(Value::as_str);
    if let Some(types) = declared {
        let textual = types.split(',').any(|t| {
            let t = t.trim();
            is_json(t) && !is_any(t) || t.to_ascii_lowercase().starts_with("text/")
        });
        if !textual {
            return true;
        }
    }
    if is_raw_bytes(field, false) {
        return true;
    }
    field
        .get("items")
        .and_then(|items| refs.deref(file, items).ok())
        .is_some_and(|(_, items)| is_raw_bytes(&items, false))
}
