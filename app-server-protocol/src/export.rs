//! Schema and binding export, driven by the method tables.
//!
//! [`typescript`] and [`json_schema`] return the generated files as a path → contents map and
//! leave writing them to the caller, so that this crate stays free of I/O. Output is
//! deterministic: the same code always yields byte-identical files.
//!
//! Experimental surface: methods marked `[Experimental]` in a table, and fields or types whose
//! doc comment contains the tag `@experimental`, are left out unless
//! [`ExportOptions::experimental`] is set.

use std::any::TypeId;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use schemars::JsonSchema;
use serde_json::{Map, Value, json};
use ts_rs::TS;

use crate::jsonrpc::{JsonRpcError, JsonRpcMessage, RequestId};
use crate::tables::{ClientNotification, ClientRequest, ServerNotification, ServerRequest};
use crate::tables_meta::{MethodSpec, Stability};

/// The tag that marks an experimental field or type in a doc comment.
pub const EXPERIMENTAL_TAG: &str = "@experimental";

/// Name of the JSON Schema bundle file.
pub const JSON_BUNDLE_FILE: &str = "tandem_app_server_protocol.schemas.json";

/// First line of every generated TypeScript file.
const TS_HEADER: &str =
    "// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.\n";

/// What to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportOptions {
    /// Include experimental methods, fields and types.
    pub experimental: bool,
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// ts-rs could not render a type.
    #[error("typescript export failed: {0}")]
    TypeScript(#[from] ts_rs::ExportError),
    /// A generated declaration had a shape the experimental filter cannot edit safely.
    #[error("cannot filter experimental field in {file}: {reason}")]
    ExperimentalFilter {
        /// The file being filtered.
        file: String,
        /// What was unexpected.
        reason: String,
    },
    /// A schema could not be rendered as JSON.
    #[error("json schema export failed: {0}")]
    Json(#[from] serde_json::Error),
}

/// One method table, as seen by the exporters.
struct Table {
    /// Name of the union type, such as `ClientRequest`.
    name: &'static str,
    /// Doc comment of the union type.
    doc: &'static str,
    /// The table's entries.
    methods: &'static [MethodSpec],
    /// Whether messages carry an `id`.
    has_id: bool,
}

const TABLES: [Table; 4] = [
    Table {
        name: "ClientRequest",
        doc: "A request from the client to the server.",
        methods: ClientRequest::METHODS,
        has_id: true,
    },
    Table {
        name: "ServerRequest",
        doc: "A request from the server to the client; the turn waits for the answer.",
        methods: ServerRequest::METHODS,
        has_id: true,
    },
    Table {
        name: "ServerNotification",
        doc: "A notification from the server to the client.",
        methods: ServerNotification::METHODS,
        has_id: false,
    },
    Table {
        name: "ClientNotification",
        doc: "A notification from the client to the server.",
        methods: ClientNotification::METHODS,
        has_id: false,
    },
];

fn included(spec: &MethodSpec, options: &ExportOptions) -> bool {
    options.experimental || spec.stability == Stability::Stable
}

/// Walks the params and response types of every included method.
fn visit_all_tables(visitor: &mut impl crate::tables_meta::TypeVisitor) {
    ClientRequest::visit_types(visitor);
    ServerRequest::visit_types(visitor);
    ServerNotification::visit_types(visitor);
    ClientNotification::visit_types(visitor);
}

// ---------------------------------------------------------------------------------------------
// TypeScript

/// Generates the TypeScript bindings: one `.ts` file per type, the four message unions and an
/// `index.ts`.
pub fn typescript(options: &ExportOptions) -> Result<BTreeMap<String, String>, ExportError> {
    let config = ts_rs::Config::new().with_large_int("number");
    let mut collector = TsCollector {
        config: &config,
        options: *options,
        files: BTreeMap::new(),
        seen: HashSet::new(),
        error: None,
    };
    visit_all_tables(&mut collector);
    ts_rs::TypeVisitor::visit::<RequestId>(&mut collector);
    ts_rs::TypeVisitor::visit::<JsonRpcMessage>(&mut collector);
    ts_rs::TypeVisitor::visit::<JsonRpcError>(&mut collector);
    if let Some(error) = collector.error {
        return Err(error);
    }

    let mut files = BTreeMap::new();
    for (path, contents) in collector.files {
        let contents = if options.experimental {
            contents
        } else {
            strip_experimental_ts_fields(&path, &contents)?
        };
        files.insert(path, contents);
    }
    for table in &TABLES {
        files.insert(format!("{}.ts", table.name), ts_union(table, options));
    }
    prune_unreachable_ts(&mut files, options);
    let files: BTreeMap<String, String> = files
        .into_iter()
        .map(|(path, contents)| (path, finish_ts_file(&contents)))
        .collect();
    let mut files = files;
    let index = ts_index(&files);
    files.insert("index.ts".to_string(), index);
    Ok(files)
}

struct TsCollector<'a> {
    config: &'a ts_rs::Config,
    options: ExportOptions,
    files: BTreeMap<String, String>,
    seen: HashSet<TypeId>,
    error: Option<ExportError>,
}

impl ts_rs::TypeVisitor for TsCollector<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if self.error.is_some() {
            return;
        }
        let Some(path) = T::output_path() else {
            return;
        };
        if !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        match T::export_to_string(self.config) {
            Ok(contents) => {
                self.files
                    .insert(path.to_string_lossy().replace('\\', "/"), contents);
            }
            Err(error) => {
                self.error = Some(error.into());
                return;
            }
        }
        T::visit_dependencies(self);
    }
}

impl crate::tables_meta::TypeVisitor for TsCollector<'_> {
    fn request<P, R>(&mut self, spec: &MethodSpec)
    where
        P: TS + JsonSchema + 'static,
        R: TS + JsonSchema + 'static,
    {
        if included(spec, &self.options) {
            ts_rs::TypeVisitor::visit::<P>(self);
            ts_rs::TypeVisitor::visit::<R>(self);
        }
    }

    fn notification<P>(&mut self, spec: &MethodSpec)
    where
        P: TS + JsonSchema + 'static,
    {
        if included(spec, &self.options) {
            ts_rs::TypeVisitor::visit::<P>(self);
        }
    }
}

/// Removes every field whose JSDoc carries [`EXPERIMENTAL_TAG`]. ts-rs writes a documented
/// field as `/**` … `*/` followed by one line `name: Type, `.
fn strip_experimental_ts_fields(path: &str, contents: &str) -> Result<String, ExportError> {
    let mut output = String::with_capacity(contents.len());
    let mut rest = contents;
    while let Some(start) = rest.find("/**") {
        let Some(end_offset) = rest[start..].find("*/") else {
            break;
        };
        let comment_end = start + end_offset + 2;
        let comment = &rest[start..comment_end];
        let is_field_doc = rest[comment_end..].starts_with('\n')
            && !rest[comment_end + 1..].starts_with("export ");
        if comment.contains(EXPERIMENTAL_TAG) && is_field_doc {
            let line_start = comment_end + 1;
            let line_end = rest[line_start..]
                .find('\n')
                .map_or(rest.len(), |offset| line_start + offset);
            let line = &rest[line_start..line_end];
            // Keep whatever follows the field on its line (the closing of the type).
            let field_end = line.find(", ").map_or(line.len(), |offset| offset + 2);
            let field = &line[..field_end];
            if field.matches('{').count() != field.matches('}').count() || !field.contains(':') {
                return Err(ExportError::ExperimentalFilter {
                    file: path.to_string(),
                    reason: format!("unexpected field declaration `{line}`"),
                });
            }
            output.push_str(&rest[..start]);
            let consumed_line = field_end == line.len() && line_end < rest.len();
            rest = &rest[line_start + field_end + usize::from(consumed_line)..];
        } else {
            output.push_str(&rest[..comment_end]);
            rest = &rest[comment_end..];
        }
    }
    output.push_str(rest);
    Ok(output)
}

/// Renders one method table as a discriminated union plus a method map.
fn ts_union(table: &Table, options: &ExportOptions) -> String {
    let methods: Vec<&MethodSpec> = table
        .methods
        .iter()
        .filter(|spec| included(spec, options))
        .collect();
    let mut imports: BTreeSet<&str> = BTreeSet::new();
    if table.has_id {
        imports.insert("RequestId");
    }
    for spec in &methods {
        imports.insert(spec.params);
        if let Some(response) = spec.response {
            imports.insert(response);
        }
    }
    let mut out = String::new();
    for import in &imports {
        out.push_str(&format!(
            "import type {{ {import} }} from \"./{import}\";\n"
        ));
    }
    out.push('\n');
    out.push_str(&jsdoc(table.doc));
    out.push_str(&format!("export type {} =", table.name));
    for spec in &methods {
        out.push_str("\n  | ");
        let id = if table.has_id { " id: RequestId," } else { "" };
        out.push_str(&format!(
            "{{ method: \"{}\",{id} params: {} }}",
            spec.method, spec.params
        ));
    }
    if methods.is_empty() {
        out.push_str(" never");
    }
    out.push_str(";\n\n");
    out.push_str(&jsdoc(&format!(
        "Each `{}` method with its params{} type.",
        table.name,
        if table.has_id { " and response" } else { "" }
    )));
    out.push_str(&format!("export type {}Map = {{\n", table.name));
    for spec in &methods {
        out.push_str(&indent_jsdoc(spec.doc));
        match spec.response {
            Some(response) => out.push_str(&format!(
                "  \"{}\": {{ params: {}; response: {} }};\n",
                spec.method, spec.params, response
            )),
            None => out.push_str(&format!(
                "  \"{}\": {{ params: {} }};\n",
                spec.method, spec.params
            )),
        }
    }
    out.push_str("};\n");
    out
}

fn jsdoc(doc: &str) -> String {
    let mut out = String::from("/**\n");
    for line in doc.trim().lines() {
        let line = line.trim();
        if line.is_empty() {
            out.push_str(" *\n");
        } else {
            out.push_str(&format!(" * {line}\n"));
        }
    }
    out.push_str(" */\n");
    out
}

fn indent_jsdoc(doc: &str) -> String {
    jsdoc(doc)
        .lines()
        .map(|line| format!("  {line}\n"))
        .collect()
}

/// Type names a file imports, from its `import type { X } from "…";` lines.
fn ts_imports(contents: &str) -> Vec<(String, String)> {
    contents
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("import type { ")?;
            let (name, rest) = rest.split_once(" } from \"")?;
            let target = rest.strip_suffix("\";")?;
            Some((name.to_string(), target.to_string()))
        })
        .collect()
}

/// Drops imports that the body no longer uses (after filtering) and files that no root
/// reaches.
fn prune_unreachable_ts(files: &mut BTreeMap<String, String>, options: &ExportOptions) {
    for contents in files.values_mut() {
        let body: String = contents
            .lines()
            .filter(|line| !line.starts_with("import type "))
            .collect::<Vec<_>>()
            .join("\n");
        let kept: Vec<&str> = contents
            .lines()
            .filter(|line| match line.strip_prefix("import type { ") {
                Some(rest) => {
                    let name = rest.split(' ').next().unwrap_or_default();
                    contains_identifier(&body, name)
                }
                None => true,
            })
            .collect();
        let mut rebuilt = kept.join("\n");
        rebuilt.push('\n');
        *contents = rebuilt;
    }
    let mut reachable: BTreeSet<String> = BTreeSet::new();
    let mut stack: Vec<String> = TABLES
        .iter()
        .map(|table| format!("{}.ts", table.name))
        .chain(
            ["RequestId.ts", "JSONRPCMessage.ts", "JSONRPCError.ts"]
                .into_iter()
                .map(str::to_string),
        )
        .collect();
    while let Some(path) = stack.pop() {
        if !reachable.insert(path.clone()) {
            continue;
        }
        if let Some(contents) = files.get(&path) {
            let directory = path.rsplit_once('/').map_or("", |(dir, _)| dir);
            for (_, target) in ts_imports(contents) {
                stack.push(resolve_ts_import(directory, &target));
            }
        }
    }
    let _ = options;
    files.retain(|path, _| reachable.contains(path));
}

fn contains_identifier(body: &str, name: &str) -> bool {
    body.match_indices(name).any(|(index, _)| {
        let before = body[..index].chars().next_back();
        let after = body[index + name.len()..].chars().next();
        let is_ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !is_ident(before) && !is_ident(after)
    })
}

fn resolve_ts_import(directory: &str, target: &str) -> String {
    let mut parts: Vec<&str> = if directory.is_empty() {
        Vec::new()
    } else {
        directory.split('/').collect()
    };
    for part in target.split('/') {
        match part {
            "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("{}.ts", parts.join("/"))
}

/// Replaces ts-rs's banner with ours.
fn finish_ts_file(contents: &str) -> String {
    let body: Vec<&str> = contents
        .lines()
        .filter(|line| !line.starts_with("// This file was generated by [ts-rs]"))
        .collect();
    let body = body.join("\n");
    format!("{TS_HEADER}{}\n", body.trim_matches('\n'))
}

fn ts_index(files: &BTreeMap<String, String>) -> String {
    let mut out = String::from(TS_HEADER);
    out.push('\n');
    for (path, contents) in files {
        let module = path.trim_end_matches(".ts");
        let names: Vec<&str> = contents
            .lines()
            .filter_map(|line| line.strip_prefix("export type "))
            .filter_map(|rest| rest.split([' ', '<', '=']).next())
            .collect();
        out.push_str(&format!(
            "export type {{ {} }} from \"./{module}\";\n",
            names.join(", ")
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// JSON Schema

/// Generates the JSON Schema files: one self-contained schema per type (with the definitions
/// it references) and one bundle, [`JSON_BUNDLE_FILE`], with every definition and the four
/// message unions.
pub fn json_schema(options: &ExportOptions) -> Result<BTreeMap<String, String>, ExportError> {
    let mut collector = SchemaCollector {
        generator: schemars::generate::SchemaSettings::draft2020_12().into_generator(),
        options: *options,
    };
    visit_all_tables(&mut collector);
    collector.generator.subschema_for::<RequestId>();
    collector.generator.subschema_for::<JsonRpcMessage>();
    let mut definitions: Map<String, Value> = collector.generator.take_definitions(true);

    if !options.experimental {
        for definition in definitions.values_mut() {
            strip_experimental_properties(definition);
        }
    }
    for table in &TABLES {
        definitions.insert(table.name.to_string(), schema_union(table, options));
        definitions.insert(
            format!("{}Map", table.name),
            schema_method_map(table, options),
        );
    }
    let roots: Vec<String> = TABLES
        .iter()
        .map(|table| table.name.to_string())
        .chain(TABLES.iter().map(|table| format!("{}Map", table.name)))
        .chain(["RequestId", "JSONRPCMessage"].map(str::to_string))
        .collect();
    let kept = reachable(roots, |name| definitions.get(name));
    definitions.retain(|name, _| kept.contains(name));
    let definitions: BTreeMap<String, Value> = definitions.into_iter().collect();

    let mut files = BTreeMap::new();
    for (name, definition) in &definitions {
        let closure = reachable(vec![name.clone()], |dep| definitions.get(dep));
        let mut schema = Map::new();
        schema.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
        schema.insert("title".into(), json!(name));
        if let Value::Object(body) = definition {
            for (key, value) in body {
                schema.insert(key.clone(), value.clone());
            }
        }
        let defs: Map<String, Value> = closure
            .into_iter()
            .filter(|dep| dep != name)
            .filter_map(|dep| definitions.get(&dep).map(|value| (dep, value.clone())))
            .collect();
        if !defs.is_empty() {
            schema.insert("$defs".into(), Value::Object(defs));
        }
        // A self-reference must point at the root of a standalone file.
        let mut schema = Value::Object(schema);
        rewrite_self_refs(&mut schema, name);
        files.insert(format!("{name}.json"), pretty_json(&schema)?);
    }
    let bundle = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "TandemAppServerProtocol",
        "description": "Every type of the Tandem app-server protocol. The four message unions are ClientRequest, ServerRequest, ServerNotification and ClientNotification.",
        "$defs": definitions,
    });
    files.insert(JSON_BUNDLE_FILE.to_string(), pretty_json(&bundle)?);
    Ok(files)
}

struct SchemaCollector {
    generator: schemars::SchemaGenerator,
    options: ExportOptions,
}

impl crate::tables_meta::TypeVisitor for SchemaCollector {
    fn request<P, R>(&mut self, spec: &MethodSpec)
    where
        P: TS + JsonSchema + 'static,
        R: TS + JsonSchema + 'static,
    {
        if included(spec, &self.options) {
            self.generator.subschema_for::<P>();
            self.generator.subschema_for::<R>();
        }
    }

    fn notification<P>(&mut self, spec: &MethodSpec)
    where
        P: TS + JsonSchema + 'static,
    {
        if included(spec, &self.options) {
            self.generator.subschema_for::<P>();
        }
    }
}

fn is_experimental(schema: &Value) -> bool {
    schema
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|description| description.contains(EXPERIMENTAL_TAG))
}

/// Removes properties documented as experimental, recursively (variants of unions included).
fn strip_experimental_properties(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let mut removed = Vec::new();
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                properties.retain(|name, property| {
                    let keep = !is_experimental(property);
                    if !keep {
                        removed.push(name.clone());
                    }
                    keep
                });
            }
            if let Some(Value::Array(required)) = map.get_mut("required") {
                required.retain(|name| {
                    !removed
                        .iter()
                        .any(|gone| Some(gone.as_str()) == name.as_str())
                });
            }
            for value in map.values_mut() {
                strip_experimental_properties(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_experimental_properties),
        _ => {}
    }
}

fn schema_union(table: &Table, options: &ExportOptions) -> Value {
    let variants: Vec<Value> = table
        .methods
        .iter()
        .filter(|spec| included(spec, options))
        .map(|spec| {
            let mut properties = Map::new();
            let mut required = vec![json!("method")];
            if table.has_id {
                properties.insert("id".into(), json!({"$ref": "#/$defs/RequestId"}));
                required.push(json!("id"));
            }
            properties.insert("method".into(), json!({"type": "string", "const": spec.method}));
            properties.insert(
                "params".into(),
                json!({"$ref": format!("#/$defs/{}", spec.params)}),
            );
            required.push(json!("params"));
            let mut variant = json!({
                "title": format!("{}{}", spec.variant, if table.has_id { "Request" } else { "Notification" }),
                "description": spec.doc.trim(),
                "type": "object",
                "properties": properties,
                "required": required,
            });
            if let Some(response) = spec.response {
                variant["x-response"] = json!({"$ref": format!("#/$defs/{response}")});
            }
            variant
        })
        .collect();
    json!({"description": table.doc, "oneOf": variants})
}

/// Each method of a table with its params (and response) type, like the TypeScript `…Map`.
fn schema_method_map(table: &Table, options: &ExportOptions) -> Value {
    let mut properties = Map::new();
    for spec in table.methods.iter().filter(|spec| included(spec, options)) {
        let mut entry = Map::new();
        entry.insert(
            "params".into(),
            json!({"$ref": format!("#/$defs/{}", spec.params)}),
        );
        let mut required = vec![json!("params")];
        if let Some(response) = spec.response {
            entry.insert(
                "response".into(),
                json!({"$ref": format!("#/$defs/{response}")}),
            );
            required.push(json!("response"));
        }
        properties.insert(
            spec.method.to_string(),
            json!({
                "description": spec.doc.trim(),
                "type": "object",
                "properties": entry,
                "required": required,
            }),
        );
    }
    json!({
        "description": format!(
            "Each `{}` method with its params{} type.",
            table.name,
            if table.has_id { " and response" } else { "" }
        ),
        "type": "object",
        "properties": properties,
    })
}

fn collect_refs(schema: &Value, refs: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref")
                && let Some(name) = reference.strip_prefix("#/$defs/")
            {
                refs.push(name.to_string());
            }
            map.values().for_each(|value| collect_refs(value, refs));
        }
        Value::Array(items) => items.iter().for_each(|value| collect_refs(value, refs)),
        _ => {}
    }
}

/// Names of the definitions reachable from `roots` through `$ref`s.
fn reachable<'a>(
    roots: Vec<String>,
    lookup: impl Fn(&str) -> Option<&'a Value>,
) -> BTreeSet<String> {
    let mut reachable = BTreeSet::new();
    let mut stack = roots;
    while let Some(name) = stack.pop() {
        if !reachable.insert(name.clone()) {
            continue;
        }
        if let Some(definition) = lookup(&name) {
            collect_refs(definition, &mut stack);
        }
    }
    reachable
}

fn rewrite_self_refs(schema: &mut Value, name: &str) {
    let own = format!("#/$defs/{name}");
    match schema {
        Value::Object(map) => {
            if map.get("$ref").and_then(Value::as_str) == Some(own.as_str()) {
                map.insert("$ref".into(), json!("#"));
            }
            map.values_mut()
                .for_each(|value| rewrite_self_refs(value, name));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|value| rewrite_self_refs(value, name)),
        _ => {}
    }
}

fn pretty_json(value: &Value) -> Result<String, ExportError> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}
