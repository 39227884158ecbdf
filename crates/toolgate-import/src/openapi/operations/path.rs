//! A path parameter in the path template: `{+arg}` for a value that keeps its `/`,
//! the label and matrix operators, and the styles a template writes only as one text
//! or as several arguments.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::super::path_style::{MemberLayout, PathStyle};
use super::super::schema::Dialect;
use super::builder::Builder;
use super::parameters::Param;
use super::{
    Arg, Skip, holds_slashes, names_a_resource, unique_arg, with_operator_expressions,
    written_in_place_of,
};

impl Builder<'_> {
    /// Writes the argument into the path; `false` when the parameter became arguments
    /// of its own instead (an exploded matrix list or object).
    pub(super) fn path_parameter(
        &mut self,
        param: Param<'_>,
        raw_schema: &Value,
        arg: &str,
        schema: &mut Value,
    ) -> Result<bool, Skip> {
        let Param {
            file: pfile,
            p,
            name,
            ..
        } = param;
        let Self {
            cx,
            conv,
            path,
            notes,
            ..
        } = self;
        // A value that is a path of its own keeps its `/` (`{+arg}`): sent as
        // one segment, `projects/p/locations/l` would be `projects%2Fp%2F…`.
        let placeholder = if holds_slashes(p, raw_schema)
            || (cx.resource_names && names_a_resource(path, name))
        {
            format!("{{+{arg}}}")
        } else {
            format!("{{{arg}}}")
        };
        // OpenAPI 3's `style: label` (`.5`) and `style: matrix` (`;id=5`) are
        // the RFC 6570 `{.id}` and `{;id}` written on the parameter.
        let operator = match p.get("style").and_then(Value::as_str) {
            Some("label") if cx.dialect != Dialect::Swagger2 => Some('.'),
            Some("matrix") if cx.dialect != Dialect::Swagger2 => Some(';'),
            _ => None,
        };
        let styled = conv.refs_mut().deref(pfile, raw_schema).map_or_else(
            |_| (pfile.to_path_buf(), raw_schema.clone()),
            |(f, s)| (f, s),
        );
        match super::super::path_style::of(p, &styled.1, cx.dialect) {
            PathStyle::AsIs => {}
            PathStyle::Text(how) => {
                let described = schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| format!("{d} "))
                    .unwrap_or_default();
                *schema = json!({"type": "string", "description": format!("{described}{how}")});
                notes.push(format!(
                    "path parameter `{name}` is a {} the model writes as one text, as its style sends it",
                    if super::super::list_format::single_type(&styled.1) == Some("array") { "list" } else { "structure" }
                ));
            }
            PathStyle::Items(1) => {
                if let Value::Object(m) = schema {
                    m.insert("maxItems".into(), json!(1));
                }
                notes.push(format!(
                    "path parameter `{name}` is an exploded `matrix` list (`;{name}=a;{name}=b`): one item is sent per call"
                ));
            }
            PathStyle::Items(count) => {
                self.matrix_items(name, &styled, count);
                return Ok(false);
            }
            PathStyle::Members(members, layout) => {
                self.object_members(name, &styled, &members, &layout);
                return Ok(false);
            }
            PathStyle::Unsendable(why) => {
                return Err(Skip(format!(
                    "needs the path parameter `{name}`, which cannot be sent: {why}"
                )));
            }
        }
        if let Some(op) = operator {
            *path = path.replace(&format!("{{{name}}}"), &format!("{{{op}{name}}}"));
        }
        *path = with_operator_expressions(path, name, &placeholder);
        Ok(true)
    }

    /// An exploded `matrix` list of at least `count` items: exactly that many arguments.
    fn matrix_items(&mut self, name: &str, styled: &(PathBuf, Value), count: u64) {
        let Self {
            conv,
            args,
            used,
            path,
            notes,
            ..
        } = self;
        // A template writes the name once: the `minItems` the
        // description asks for are that many arguments, each after its
        // own `;name=`.
        let item_schema = styled
            .1
            .get("items")
            .map_or_else(|| json!({}), |s| conv.part(&styled.0, s));
        let mut written = String::new();
        for n in 1..=count {
            let item_arg = unique_arg(used, &format!("{name}_{n}"), "path");
            written.push_str(&format!(";{name}={{{item_arg}}}"));
            args.push(Arg {
                name: item_arg,
                schema: item_schema.clone(),
                required: true,
            });
        }
        *path = written_in_place_of(path, name, &written);
        notes.push(format!(
            "path parameter `{name}` is an exploded `matrix` list of at least {count} items: exactly {count} are sent, each an argument of its own"
        ));
    }

    /// An object in the path: each member an argument, all required.
    fn object_members(
        &mut self,
        name: &str,
        styled: &(PathBuf, Value),
        members: &[String],
        layout: &MemberLayout,
    ) {
        let Self {
            conv,
            args,
            used,
            path,
            notes,
            ..
        } = self;
        let mut written = Vec::new();
        for member in members {
            let member_arg = unique_arg(used, &format!("{name}_{member}"), "path");
            let member_schema = styled
                .1
                .get("properties")
                .and_then(|m| m.get(member))
                .map_or_else(|| json!({}), |s| conv.part(&styled.0, s));
            written.push((member.clone(), format!("{{{member_arg}}}")));
            args.push(Arg {
                name: member_arg,
                schema: member_schema,
                required: true,
            });
        }
        *path = written_in_place_of(path, name, &layout.write(&written));
        notes.push(format!(
            "path parameter `{name}` is an object: each member is an argument, all required, written between the separators its style keeps"
        ));
    }
}
