//! Code-aware chunks from a syntax tree (tree-sitter) for Rust, Python, JavaScript, TypeScript
//! (and JSX/TSX), Go, Java, C and C++ (the grammars and their node kinds are in [`langs`]): a chunk
//! is a function, method, type (struct, class, interface, enum, type alias), impl or namespace with
//! the doc comments and attributes (decorators, annotations) before it; small neighbouring items
//! (imports, constants, one-line functions) share a chunk up to the size cap. An item longer than the cap is split at the boundaries of its members (the methods of an impl
//! or class, the statements of a function), each part carrying the item's signature as its
//! `context`, so that a part of a long method still names the method and its type. What the tree
//! cannot split (a member that is still too long, or nesting deeper than [`MAX_DEPTH`]) falls back
//! to the line chunker within its lines, with the same context. Files of other languages, files
//! whose tree has a syntax error (in C and C++, whose macros often defeat the grammar: an error
//! that leaves a line that is not blank outside every chunk), and files that take the parser over
//! [`MAX_PARSE_TIME`], are not handled here ([`chunk_code`] answers `None`).

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Node, ParseOptions, ParseState, Parser};

use crate::chunk::{Chunk, ChunkLimits};

mod langs;

use langs::Lang;

/// Deepest nesting of items split by their members; deeper ones are cut by lines.
const MAX_DEPTH: usize = 6;
/// Longest parse of one file; past it the file is cut by lines.
const MAX_PARSE_TIME: Duration = Duration::from_secs(2);
/// Most lines of an item's signature repeated as the context of its parts.
const MAX_HEADER_LINES: usize = 4;
/// Longest context, in bytes (the signatures of the enclosing items).
const MAX_CONTEXT_BYTES: usize = 1024;

/// The code-aware chunks of `text`, or `None` when `path` has no grammar here or `text` does not
/// parse cleanly (C and C++: well enough to cover every line; the caller then uses the line
/// chunker).
pub fn chunk_code(path: &str, text: &str, limits: ChunkLimits) -> Option<Vec<Chunk>> {
    let lang = langs::of(path)?;
    let mut parser = Parser::new();
    parser.set_language(&(lang.grammar)()).ok()?;
    // A file that takes the parser this long (a pathological one) is cut by lines instead.
    let started = Instant::now();
    let mut in_time = |_: &ParseState| {
        if started.elapsed() > MAX_PARSE_TIME {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let bytes = text.as_bytes();
    let tree = parser.parse_with_options(
        &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
        None,
        Some(ParseOptions::new().progress_callback(&mut in_time)),
    )?;
    let root = tree.root_node();
    if root.has_error() && !lang.tolerates_errors {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return Some(Vec::new());
    }
    let mut chunker = Chunker {
        lang,
        lines: &lines,
        limits: ChunkLimits {
            max_lines: limits.max_lines.max(4),
            overlap_lines: limits.overlap_lines,
        },
        out: Vec::new(),
    };
    let units = chunker.units(root, None);
    chunker.group(&units, "", 0);
    if root.has_error() && !covers(&chunker.out, &lines) {
        return None;
    }
    Some(chunker.out)
}

/// A run of whole lines (0-based, inclusive) taken by one item with what leads it.
#[derive(Debug, Clone, Copy)]
struct Unit<'tree> {
    start: usize,
    end: usize,
    /// The item, when the unit is one (not a run of statements or comments).
    item: Option<Node<'tree>>,
}

struct Chunker<'text> {
    lang: &'static Lang,
    lines: &'text [&'text str],
    limits: ChunkLimits,
    out: Vec<Chunk>,
}

impl Chunker<'_> {
    /// The last row `node` covers (a node that ends at the start of a line ends on the line
    /// before).
    fn end_row(node: Node<'_>) -> usize {
        let end = node.end_position();
        if end.column == 0 && end.row > node.start_position().row {
            end.row - 1
        } else {
            end.row
        }
    }

    /// The units of `parent`'s named children; comments and attributes join the item after
    /// them. `span` widens the first unit to start at, and the last to end at, the given rows
    /// (the signature and the closing line of the item whose members these are).
    fn units<'tree>(&self, parent: Node<'tree>, span: Option<(usize, usize)>) -> Vec<Unit<'tree>> {
        let mut units = Vec::new();
        let mut lead: Option<usize> = None;
        let mut cursor = parent.walk();
        for child in parent.named_children(&mut cursor) {
            let kind = child.kind();
            let start = child.start_position().row;
            if self.lang.leads.contains(&kind) {
                lead.get_or_insert(start);
                continue;
            }
            let item = (self.lang.items.contains(&kind)
                || (parent.parent().is_none() && self.lang.top_items.contains(&kind)))
            .then_some(child);
            units.push(Unit {
                start: lead.take().unwrap_or(start),
                end: Self::end_row(child),
                item,
            });
        }
        if let Some(start) = lead {
            let last = parent
                .named_child(parent.named_child_count().saturating_sub(1) as u32)
                .map_or(start, Self::end_row);
            units.push(Unit {
                start,
                end: last.max(start),
                item: None,
            });
        }
        if let Some((first, last)) = span {
            if let Some(unit) = units.first_mut() {
                unit.start = unit.start.min(first);
            }
            if let Some(unit) = units.last_mut() {
                unit.end = unit.end.max(last);
            }
            // The signature and what follows it before the first member item (a docstring,
            // inner attributes) go with that item when they fit.
            if let [head, next, ..] = units.as_slice()
                && head.item.is_none()
                && next.item.is_some()
                && next.end - head.start < self.limits.max_lines
            {
                units[1].start = head.start;
                units.remove(0);
            }
        }
        units
    }

    /// Chunks of consecutive `units`: an item of a useful size stands alone, smaller units share
    /// a chunk up to the cap, and longer ones are split.
    fn group(&mut self, units: &[Unit<'_>], context: &str, depth: usize) {
        let max_lines = self.limits.max_lines;
        let useful = (max_lines / 4).max(3);
        // The open chunk: first and last row, and whether it is an item of a useful size.
        let mut open: Option<(usize, usize, bool)> = None;
        for unit in units {
            // Units may share a row with the one before (two items on one line).
            let start = open.map_or(unit.start, |(_, end, _)| unit.start.max(end + 1));
            if start > unit.end {
                if let Some(open) = open.as_mut() {
                    open.1 = open.1.max(unit.end);
                }
                continue;
            }
            let length = unit.end - start + 1;
            if length > max_lines {
                if let Some((first, last, _)) = open.take() {
                    self.push(first, last, context);
                }
                self.split(unit, start, context, depth);
                continue;
            }
            let whole = unit.item.is_some() && length >= useful;
            if let Some((first, last, open_whole)) = open {
                if !whole && !open_whole && unit.end - first < max_lines {
                    open = Some((first, unit.end, false));
                    continue;
                }
                self.push(first, last, context);
            }
            open = Some((start, unit.end, whole));
        }
        if let Some((first, last, _)) = open {
            self.push(first, last, context);
        }
    }

    /// Splits a unit longer than the cap: an item by its members, with its signature as context;
    /// anything else by lines.
    fn split(&mut self, unit: &Unit<'_>, start: usize, context: &str, depth: usize) {
        let members = match unit.item.and_then(|item| self.members(item)) {
            Some((definition, body)) if depth < MAX_DEPTH && body.named_child_count() > 0 => {
                Some((definition, body))
            }
            _ => None,
        };
        let Some((definition, body)) = members else {
            self.by_lines(start, unit.end, context);
            return;
        };
        // The signature starts at the name when attributes or annotations come before it
        // within the definition.
        let signature_start = definition
            .child_by_field_name("name")
            .map_or(0, |name| name.start_position().row)
            .max(definition.start_position().row);
        let first_member = body
            .named_child(0)
            .map_or(signature_start, |member| member.start_position().row);
        let header_end = first_member
            .saturating_sub(1)
            .max(signature_start)
            .min(signature_start + MAX_HEADER_LINES - 1);
        let header = self.lines[signature_start..=header_end.min(self.lines.len() - 1)]
            .iter()
            .map(|line| line.trim())
            .collect::<Vec<_>>()
            .join("\n");
        let mut inner = if self.lang.transparent.contains(&definition.kind()) {
            context.to_string()
        } else if context.is_empty() {
            header
        } else {
            format!("{context}\n{header}")
        };
        truncate(&mut inner, MAX_CONTEXT_BYTES);
        let members = self.units(body, Some((start, unit.end)));
        // The first part holds the signature itself: only later parts need it as context.
        let before = self.out.len();
        self.group(&members, &inner, depth + 1);
        if let Some(first) = self.out.get_mut(before)
            && first.start_line <= signature_start + 1
        {
            first.context = context.to_string();
        }
    }

    /// The definition whose signature heads the parts of `item`, and the node whose named
    /// children are its members: the `body` of the item or of what it wraps (an export, a
    /// decorated or templated definition, a `typedef`, a variable holding a function).
    fn members<'tree>(&self, item: Node<'tree>) -> Option<(Node<'tree>, Node<'tree>)> {
        let mut definition = item;
        let mut node = item;
        for _ in 0..MAX_DEPTH {
            if let Some(mut body) = node.child_by_field_name("body") {
                // A block whose statements sit in one list node (Go).
                while body.named_child_count() == 1
                    && let Some(list) = body.named_child(0)
                    && self.lang.member_lists.contains(&list.kind())
                {
                    body = list;
                }
                return Some((definition, body));
            }
            if self.lang.member_lists.contains(&node.kind()) {
                return Some((definition, node));
            }
            let field = langs::INNER_FIELDS
                .iter()
                .enumerate()
                .find_map(|(index, field)| Some((index, node.child_by_field_name(field)?)));
            node = match field {
                Some((index, inner)) => {
                    if index < 2 {
                        definition = inner;
                    }
                    inner
                }
                None if self.lang.wrappers.contains(&node.kind()) => {
                    node.named_child(node.named_child_count().checked_sub(1)? as u32)?
                }
                None => return None,
            };
        }
        None
    }

    /// The line chunker over rows `first..=last`, with `context`.
    fn by_lines(&mut self, first: usize, last: usize, context: &str) {
        let text = self.lines[first..=last].join("\n");
        for mut chunk in crate::chunk::chunk_text(&text, self.limits) {
            chunk.start_line += first;
            chunk.end_line += first;
            chunk.context = context.to_string();
            self.out.push(chunk);
        }
    }

    /// One chunk of rows `first..=last` (trailing blank lines dropped).
    fn push(&mut self, first: usize, last: usize, context: &str) {
        let mut first = first;
        while first < last && self.lines[first].trim().is_empty() {
            first += 1;
        }
        let mut last = last.min(self.lines.len() - 1);
        while last > first && self.lines[last].trim().is_empty() {
            last -= 1;
        }
        if self.lines[first..=last]
            .iter()
            .all(|line| line.trim().is_empty())
        {
            return;
        }
        self.out.push(Chunk {
            start_line: first + 1,
            end_line: last + 1,
            text: self.lines[first..=last].join("\n"),
            context: context.to_string(),
        });
    }
}

/// Whether every line of `lines` that is not blank is in one of `chunks` (a tree with errors
/// may leave lines outside every item).
fn covers(chunks: &[Chunk], lines: &[&str]) -> bool {
    let mut covered = vec![false; lines.len()];
    for chunk in chunks {
        let end = chunk.end_line.min(lines.len());
        if let Some(rows) = covered.get_mut(chunk.start_line.saturating_sub(1)..end) {
            rows.fill(true);
        }
    }
    lines
        .iter()
        .zip(covered)
        .all(|(line, covered)| covered || line.trim().is_empty())
}

/// Cuts `text` to at most `max` bytes at a character boundary.
fn truncate(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
}

#[cfg(test)]
mod lang_tests;
#[cfg(test)]
mod tests;
