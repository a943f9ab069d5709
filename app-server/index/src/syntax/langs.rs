//! The languages of the code-aware chunker, as data: each grammar's file extensions, the node
//! kinds that lead an item (comments, attributes), the kinds that are items, and the kinds
//! through which an item's members are reached. Node kinds are those of each grammar's
//! `node-types.json`.

use tree_sitter::Language;

/// What the chunker knows of one grammar.
pub(super) struct Lang {
    /// The grammar.
    pub grammar: fn() -> Language,
    /// Comments and attributes that belong to the item after them.
    pub leads: &'static [&'static str],
    /// Items that make a chunk of their own once they have a useful size.
    pub items: &'static [&'static str],
    /// Items only at the top level of a file (a variable holding a function there; in a
    /// function body it is a statement).
    pub top_items: &'static [&'static str],
    /// Kinds that only wrap the item whose members are split (an export, a template, a
    /// `typedef`, a variable holding a function); their last named child is that item when no
    /// field of [`INNER_FIELDS`] names it.
    pub wrappers: &'static [&'static str],
    /// Kinds that are themselves the list of members (a block whose statements sit in one
    /// child, an interface type, a preprocessor conditional around declarations).
    pub member_lists: &'static [&'static str],
    /// Member lists whose first line is no signature: their members are split without it as
    /// context (a preprocessor conditional, whose `#ifdef` says little and, when a macro defeats
    /// the grammar, may wrap far more than it does).
    pub transparent: &'static [&'static str],
    /// Whether a tree with syntax errors is still cut by its items (C and C++, whose macros
    /// often defeat the grammar); the chunks must then cover every line that is not blank, or
    /// the file is cut by lines.
    pub tolerates_errors: bool,
}

/// Fields that lead from a wrapper to the item inside it, in the order they are tried; the
/// first two name the definition whose signature is repeated.
pub(super) const INNER_FIELDS: [&str; 4] = ["definition", "declaration", "type", "value"];

/// The grammar for `path`, by its extension.
pub(super) fn of(path: &str) -> Option<&'static Lang> {
    let (_, extension) = path.rsplit_once('.')?;
    Some(match extension {
        "rs" => &RUST,
        "py" | "pyi" => &PYTHON,
        "js" | "jsx" | "mjs" | "cjs" => &JAVASCRIPT,
        "ts" | "mts" | "cts" => &TYPESCRIPT,
        "tsx" => &TSX,
        "go" => &GO,
        "java" => &JAVA,
        "c" | "h" => &C,
        "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" => &CPP,
        _ => return None,
    })
}

static RUST: Lang = Lang {
    grammar: || tree_sitter_rust::LANGUAGE.into(),
    leads: &["line_comment", "block_comment", "attribute_item"],
    items: &[
        "function_item",
        "function_signature_item",
        "struct_item",
        "enum_item",
        "union_item",
        "trait_item",
        "impl_item",
        "mod_item",
        "macro_definition",
        "const_item",
        "static_item",
        "type_item",
        "macro_invocation",
    ],
    top_items: &[],
    wrappers: &[],
    member_lists: &[],
    transparent: &[],
    tolerates_errors: false,
};

static PYTHON: Lang = Lang {
    grammar: || tree_sitter_python::LANGUAGE.into(),
    leads: &["comment"],
    items: &[
        "function_definition",
        "class_definition",
        "decorated_definition",
    ],
    top_items: &[],
    wrappers: &[],
    member_lists: &[],
    transparent: &[],
    tolerates_errors: false,
};

/// The items of JavaScript; TypeScript adds its own to these.
const JS_ITEMS: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "method_definition",
    "export_statement",
];
const JS_WRAPPERS: &[&str] = &["lexical_declaration", "variable_declaration"];

static JAVASCRIPT: Lang = Lang {
    grammar: || tree_sitter_javascript::LANGUAGE.into(),
    leads: &["comment"],
    items: JS_ITEMS,
    top_items: JS_WRAPPERS,
    wrappers: JS_WRAPPERS,
    member_lists: &[],
    transparent: &[],
    tolerates_errors: false,
};

const TS_ITEMS: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "method_definition",
    "export_statement",
    "abstract_class_declaration",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "internal_module",
    "module",
    "ambient_declaration",
    "function_signature",
    "method_signature",
    "abstract_method_signature",
];
const TS_WRAPPERS: &[&str] = &[
    "lexical_declaration",
    "variable_declaration",
    "ambient_declaration",
];

static TYPESCRIPT: Lang = Lang {
    grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    leads: &["comment"],
    items: TS_ITEMS,
    top_items: JS_WRAPPERS,
    wrappers: TS_WRAPPERS,
    member_lists: &["object_type"],
    transparent: &[],
    tolerates_errors: false,
};

static TSX: Lang = Lang {
    grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
    leads: &["comment"],
    items: TS_ITEMS,
    top_items: JS_WRAPPERS,
    wrappers: TS_WRAPPERS,
    member_lists: &["object_type"],
    transparent: &[],
    tolerates_errors: false,
};

static GO: Lang = Lang {
    grammar: || tree_sitter_go::LANGUAGE.into(),
    leads: &["comment"],
    items: &[
        "function_declaration",
        "method_declaration",
        "type_declaration",
    ],
    // `type T struct {…}`: the declaration, its spec, the struct and its field list.
    top_items: &[],
    wrappers: &["type_declaration", "struct_type"],
    member_lists: &["statement_list", "interface_type", "field_declaration_list"],
    transparent: &[],
    tolerates_errors: false,
};

static JAVA: Lang = Lang {
    grammar: || tree_sitter_java::LANGUAGE.into(),
    leads: &["line_comment", "block_comment"],
    items: &[
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "annotation_type_declaration",
        "method_declaration",
        "constructor_declaration",
        "compact_constructor_declaration",
    ],
    top_items: &[],
    wrappers: &[],
    member_lists: &[],
    transparent: &[],
    tolerates_errors: false,
};

/// The items of C; C++ adds its own to these.
const C_ITEMS: &[&str] = &[
    "function_definition",
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "type_definition",
    "preproc_ifdef",
    "preproc_if",
];

static C: Lang = Lang {
    grammar: || tree_sitter_c::LANGUAGE.into(),
    leads: &["comment"],
    items: C_ITEMS,
    top_items: &[],
    wrappers: &[],
    member_lists: &["preproc_ifdef", "preproc_if"],
    transparent: &["preproc_ifdef", "preproc_if"],
    tolerates_errors: true,
};

static CPP: Lang = Lang {
    grammar: || tree_sitter_cpp::LANGUAGE.into(),
    leads: &["comment"],
    items: &[
        "function_definition",
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "type_definition",
        "preproc_ifdef",
        "preproc_if",
        "class_specifier",
        "namespace_definition",
        "template_declaration",
        "linkage_specification",
        "concept_definition",
    ],
    top_items: &[],
    wrappers: &["template_declaration"],
    member_lists: &["preproc_ifdef", "preproc_if"],
    transparent: &["preproc_ifdef", "preproc_if"],
    tolerates_errors: true,
};
