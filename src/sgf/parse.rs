/*!
Generic SGF grammar (`FF[1]`–`FF[4]`): decoded text in, flat trees out. Nothing here knows Go.

# Output

[`parse`] returns a [`Collection`]: one [`Tree`] per game tree found, plus file-level
issues; [`Trees`] yields the same trees one at a time (what [`super::read_games`] uses,
so only one tree's arena is alive at once). A tree is a flat arena of [`Node`]s (links
`parent`, `first_child`, `next_sibling`; node 0 is the root; 20 bytes each) with the
properties (16 bytes each) and values of all nodes in two more flat vectors, so a
50,000-node game costs three growing vectors and no per-node allocation. Offsets are stored as `u32`: a decoded text of 4 GiB or more is read
up to there ([`IssueKind::InputTooLarge`]).

* **Values are raw**: `&str` slices of the decoded text between `[` and `]`, still escaped
  (`\]`, `\\`, soft line breaks untouched). Use [`text_value`], [`simple_text`],
  [`unescape`] and [`split_compose`] to read them. Only values that are read get copied.
* **Identifiers** are uppercase letters only. `FF[1]`–`FF[3]` names with lowercase letters
  keep their uppercase letters (`AddBlack` → `AB`, `SiZe` → `SZ`, `PlayerBlack` → `PB`,
  as sgfmill and Sabaki do). An identifier with no uppercase letter at all (`b[cc]`) is
  read as its uppercase form when it has 1–2 letters (`b` → `B`; an old-style move must not
  be lost silently, which is what sgf-parse and Sabaki do), and is dropped with
  [`IssueKind::DroppedIdent`] when longer (`illegal_chars`, `nolowercase…` in SGFC's test
  file are prose, not properties).
* **Repeated properties** in one node (Fox writes `AP` twice, SGFC's test has `W[ff] W[ff]`)
  are merged into one property with all values in order, plus
  [`IssueKind::RepeatedProperty`].

# Recovery (never recursive, never panics)

The parser is a loop over bytes with an explicit stack of open variations. All structure
characters are ASCII, and in UTF-8 every byte of a multi-byte character is ≥ 0x80, so
byte scanning of the *decoded* text is safe.

* Text before the first tree is skipped: the first tree starts at the first `(` followed
  (after whitespace) by `;`. If the file has none, the first `(` followed by a property
  (`(` ws* letters ws* `[`) is accepted as a tree with a missing `;` (Nihon Ki-in export).
  Between trees the same two forms start a tree; anything else (prose, a stray `)`, a
  BOM in the middle of concatenated files, an empty `()`) is skipped. Skipped text is a
  [`IssueKind::JunkBefore`] issue on the following tree, or
  [`IssueKind::TrailingGarbage`] / [`IssueKind::EmptyTree`] on the collection.
* Properties before the first `;` of a tree or of a variation, or right after a `)`,
  go into a new node ([`IssueKind::MissingSemicolon`]).
* Missing final `)`: the tree ends at end of input, [`IssueKind::MissingCloseParen`].
* `()` inside a tree: ignored, [`IssueKind::EmptyVariation`].
* A property without a value (`AB` then `;`) is dropped, [`IssueKind::MissingValue`];
  a value with no identifier is skipped, [`IssueKind::StrayValue`]; any other character
  inside a tree (digits, punctuation, non-ASCII) is skipped, one
  [`IssueKind::StrayChar`] per run.
* A value still open at end of input is the only **error**
  ([`IssueKind::UnterminatedValue`], located at its `[`): the tree gets
  [`Tree::error`] and parsing stops there (the rest of the input is inside that value).
* Issues are capped at [`MAX_ISSUES`] per tree (the rest counted in
  [`Tree::issues_dropped`]), and [`IssueKind::LowercaseIdent`] (a file style) is stored
  once per tree; [`Tree::count`] and [`Tree::has`] still count every occurrence.
*/

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

/// At most this many issues are stored per tree or collection.
pub const MAX_ISSUES: usize = 64;

/// Size limits of one game tree, so that a hostile file cannot make the parser's arena
/// grow without bound (a 64 MiB file of `;` would be 64 M nodes). A tree over a limit is
/// an error ([`IssueKind::TooManyNodes`], [`IssueKind::TooDeep`]) located where the limit
/// was crossed; its remaining text is skipped and the following trees are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseLimits {
    /// Most nodes in one game tree (main line and variations together).
    pub max_nodes: u32,
    /// Deepest nesting of `(` inside one game tree. OGS and Fox nest every move in its
    /// own variation, so a game of N moves nests about N deep: keep this generous.
    pub max_depth: u32,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits { max_nodes: 1_000_000, max_depth: 100_000 }
    }
}

/// What was wrong (or unusual) in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IssueKind {
    /// Text before this tree's `(` was skipped (prose, BOM, stray characters).
    JunkBefore,
    /// Text after the last tree was skipped (collection level).
    TrailingGarbage,
    /// A top-level `()` was skipped (collection level).
    EmptyTree,
    /// No game tree at all (collection level).
    NoGameTree,
    /// Properties outside a node (`(` not followed by `;`): a node was assumed.
    MissingSemicolon,
    /// End of input inside a tree: the missing `)` were assumed.
    MissingCloseParen,
    /// `()` inside a tree, ignored.
    EmptyVariation,
    /// Identifier with lowercase letters (`FF[1]`–`FF[3]`); uppercase letters kept.
    LowercaseIdent,
    /// All-lowercase identifier of 3+ letters, dropped with its values.
    DroppedIdent,
    /// The same property twice in one node; values merged.
    RepeatedProperty,
    /// Property identifier without any value, dropped.
    MissingValue,
    /// `[...]` with no identifier before it, skipped.
    StrayValue,
    /// Unexpected characters inside a tree, skipped.
    StrayChar,
    /// The decoded text is 4 GiB or more; only the first 4 GiB were read (collection level).
    InputTooLarge,
    /// The tree has more nodes than [`ParseLimits::max_nodes`]: the rest of the tree is
    /// skipped and the tree is unusable (an error); later trees are still read.
    TooManyNodes,
    /// Variations nested deeper than [`ParseLimits::max_depth`]: as [`IssueKind::TooManyNodes`].
    TooDeep,
    /// End of input inside a `[...]` value: the tree is unusable (an error).
    UnterminatedValue,
}

impl IssueKind {
    /// Stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueKind::JunkBefore => "junk_before",
            IssueKind::TrailingGarbage => "trailing_garbage",
            IssueKind::EmptyTree => "empty_tree",
            IssueKind::NoGameTree => "no_game_tree",
            IssueKind::MissingSemicolon => "missing_semicolon",
            IssueKind::MissingCloseParen => "missing_close_paren",
            IssueKind::EmptyVariation => "empty_variation",
            IssueKind::LowercaseIdent => "lowercase_ident",
            IssueKind::DroppedIdent => "dropped_ident",
            IssueKind::RepeatedProperty => "repeated_property",
            IssueKind::MissingValue => "missing_value",
            IssueKind::StrayValue => "stray_value",
            IssueKind::StrayChar => "stray_char",
            IssueKind::InputTooLarge => "input_too_large",
            IssueKind::TooManyNodes => "too_many_nodes",
            IssueKind::TooDeep => "too_deep",
            IssueKind::UnterminatedValue => "unterminated_value",
        }
    }
    /// True when the tree (or file) cannot be used.
    pub fn is_error(self) -> bool {
        matches!(
            self,
            IssueKind::UnterminatedValue | IssueKind::NoGameTree | IssueKind::TooManyNodes | IssueKind::TooDeep
        )
    }
    const COUNT: usize = IssueKind::UnterminatedValue as usize + 1;
}

impl std::fmt::Display for IssueKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One located issue: byte offset in the decoded text, and its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseIssue {
    /// Byte offset in the decoded text.
    pub offset: usize,
    /// What it is.
    pub kind: IssueKind,
}

/// "No node" in the `u32` links of [`Node`].
const NONE: u32 = u32::MAX;

#[inline]
fn opt(i: u32) -> Option<u32> {
    (i != NONE).then_some(i)
}

/// A node of a [`Tree`] (20 bytes). Node ids are indices into [`Tree::nodes`]; the links
/// are read through the methods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    parent: u32,
    first_child: u32,
    next_sibling: u32,
    last_child: u32,
    /// The node's properties are `props[prop_start..next node's prop_start]`: properties
    /// are only ever added to the newest node.
    prop_start: u32,
}

impl Node {
    /// Parent node; `None` for the root.
    pub fn parent(&self) -> Option<u32> {
        opt(self.parent)
    }
    /// First child (the main line continues here).
    pub fn first_child(&self) -> Option<u32> {
        opt(self.first_child)
    }
    /// Next sibling (the next variation at the parent).
    pub fn next_sibling(&self) -> Option<u32> {
        opt(self.next_sibling)
    }
}

/// A property as stored (16 bytes). Its values are `values[val_start..next property's
/// val_start]`; its identifier is `text[offset..offset + id_len]` when the text already
/// holds it in uppercase, else `owned[id_owned..id_owned + id_len]`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Prop {
    offset: u32,
    id_owned: u32,
    id_len: u32,
    val_start: u32,
}

/// A property with its values, as handed out by [`Tree::props`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PropRef<'t, 'a> {
    /// Identifier, uppercase letters only.
    pub ident: &'t str,
    /// Raw (still escaped) values, at least one.
    pub values: &'t [&'a str],
    /// Byte offset of the identifier in the decoded text.
    pub offset: usize,
}

/// One game tree: a flat node arena.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree<'a> {
    /// Byte offset of its `(` in the decoded text.
    pub offset: usize,
    /// All nodes; node 0 is the root. Empty only for a tree whose properties were all dropped.
    pub nodes: Vec<Node>,
    text: &'a str,
    props: Vec<Prop>,
    values: Vec<&'a str>,
    /// Identifiers rewritten from `FF[1]`–`FF[3]` spellings (`AddBlack` → `AB`).
    owned: String,
    /// Recoverable issues, in input order (at most [`MAX_ISSUES`]).
    pub issues: Vec<ParseIssue>,
    /// Issues not stored because of the cap.
    pub issues_dropped: u32,
    /// Set when the tree is unusable (unterminated value, over a limit).
    pub error: Option<ParseIssue>,
    /// With a limit error: the limit that was crossed.
    pub limit: Option<u32>,
    counts: [u32; IssueKind::COUNT],
}

/// Iterator over the properties of one node, from [`Tree::props`].
#[derive(Clone, Debug)]
pub struct Props<'t, 'a> {
    tree: &'t Tree<'a>,
    next: usize,
    end: usize,
}

impl<'t, 'a> Iterator for Props<'t, 'a> {
    type Item = PropRef<'t, 'a>;

    #[inline]
    fn next(&mut self) -> Option<PropRef<'t, 'a>> {
        if self.next >= self.end {
            return None;
        }
        let j = self.next;
        self.next += 1;
        let t = self.tree;
        let p = t.props.get(j)?;
        let vs = p.val_start as usize;
        let ve = t.props.get(j + 1).map_or(t.values.len(), |q| q.val_start as usize);
        Some(PropRef { ident: t.ident(p), values: t.values.get(vs..ve).unwrap_or(&[]), offset: p.offset as usize })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end.saturating_sub(self.next);
        (n, Some(n))
    }
}

/// Everything found in one decoded text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Collection<'a> {
    /// Game trees in input order.
    pub trees: Vec<Tree<'a>>,
    /// File-level issues: trailing garbage, empty `()` trees, no game tree, input too large.
    pub warnings: Vec<ParseIssue>,
}

impl<'a> Tree<'a> {
    fn new(text: &'a str, offset: usize) -> Tree<'a> {
        Tree { offset, text, ..Default::default() }
    }

    /// Gives back spare capacity when it is more than half of the arena.
    fn shrink(mut self) -> Tree<'a> {
        if self.nodes.capacity() > 2 * self.nodes.len() + 16 {
            self.nodes.shrink_to_fit();
        }
        if self.props.capacity() > 2 * self.props.len() + 16 {
            self.props.shrink_to_fit();
        }
        if self.values.capacity() > 2 * self.values.len() + 16 {
            self.values.shrink_to_fit();
        }
        self
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the tree has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// True if an issue of this kind occurred (also when not stored).
    pub fn has(&self, kind: IssueKind) -> bool {
        self.count(kind) > 0
    }

    /// How many issues of this kind occurred (also those not stored).
    pub fn count(&self, kind: IssueKind) -> u32 {
        self.counts[kind as usize]
    }

    #[inline]
    fn ident(&self, p: &Prop) -> &str {
        let len = p.id_len as usize;
        if p.id_owned == NONE {
            self.text.get(p.offset as usize..p.offset as usize + len).unwrap_or("")
        } else {
            self.owned.get(p.id_owned as usize..p.id_owned as usize + len).unwrap_or("")
        }
    }

    #[inline]
    fn prop_range(&self, id: usize) -> (usize, usize) {
        match self.nodes.get(id) {
            Some(n) => {
                (n.prop_start as usize, self.nodes.get(id + 1).map_or(self.props.len(), |m| m.prop_start as usize))
            }
            None => (0, 0),
        }
    }

    #[inline]
    fn value_range(&self, j: usize) -> (usize, usize) {
        (self.props[j].val_start as usize, self.props.get(j + 1).map_or(self.values.len(), |q| q.val_start as usize))
    }

    /// The properties of node `id`, in input order (repeats merged).
    pub fn props(&self, id: u32) -> Props<'_, 'a> {
        let (next, end) = self.prop_range(id as usize);
        Props { tree: self, next, end }
    }

    /// Raw values of property `ident` in node `id`.
    pub fn get(&self, id: u32, ident: &str) -> Option<&[&'a str]> {
        self.props(id).find(|p| p.ident == ident).map(|p| p.values)
    }

    /// Children of node `id`, first (main line) first.
    pub fn children(&self, id: u32) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.nodes.get(id as usize).map_or(NONE, |n| n.first_child);
        std::iter::from_fn(move || {
            let c = opt(next)?;
            next = self.nodes[c as usize].next_sibling;
            Some(c)
        })
    }

    /// The main line: root, then the first child at every branch.
    pub fn main_line(&self) -> impl Iterator<Item = u32> + '_ {
        let mut next = if self.nodes.is_empty() { NONE } else { 0 };
        std::iter::from_fn(move || {
            let c = opt(next)?;
            next = self.nodes[c as usize].first_child;
            Some(c)
        })
    }

    /// True when some node has more than one child.
    pub fn has_variations(&self) -> bool {
        self.nodes.iter().any(|n| n.next_sibling != NONE)
    }

    fn issue(&mut self, offset: usize, kind: IssueKind) {
        let n = &mut self.counts[kind as usize];
        *n = n.saturating_add(1);
        if *n > 1 && kind == IssueKind::LowercaseIdent {
            // A file style, not an accident: located once per tree.
            return;
        }
        if self.issues.len() < MAX_ISSUES {
            self.issues.push(ParseIssue { offset, kind });
        } else {
            self.issues_dropped = self.issues_dropped.saturating_add(1);
        }
    }

    #[inline]
    fn new_node(&mut self, parent: Option<u32>) -> u32 {
        let id = self.nodes.len() as u32;
        let p = self.props.len() as u32;
        let parent = parent.unwrap_or(NONE);
        self.nodes.push(Node { parent, first_child: NONE, next_sibling: NONE, last_child: NONE, prop_start: p });
        if parent != NONE {
            let lc = self.nodes[parent as usize].last_child;
            if lc == NONE {
                self.nodes[parent as usize].first_child = id;
            } else {
                self.nodes[lc as usize].next_sibling = id;
            }
            self.nodes[parent as usize].last_child = id;
        }
        id
    }

    /// Merges repeated properties of node `id` (the last node, whose properties and
    /// values are the tails of `props` and `values`).
    fn merge_repeats(&mut self, id: u32) {
        let (ps, pe) = self.prop_range(id as usize);
        if ps >= pe {
            return;
        }
        let vs = self.props[ps].val_start as usize;
        // Group by identifier, in order of first appearance (hash map: no quadratic
        // blow-up on a node with thousands of properties).
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for j in ps..pe {
            match index.entry(self.ident(&self.props[j])) {
                Entry::Occupied(e) => groups[*e.get()].push(j),
                Entry::Vacant(e) => {
                    e.insert(groups.len());
                    groups.push(vec![j]);
                }
            }
        }
        drop(index);
        let mut props = Vec::with_capacity(groups.len());
        let mut values = Vec::with_capacity(self.values.len() - vs);
        for g in &groups {
            let mut p = self.props[g[0]].clone();
            p.val_start = (vs + values.len()) as u32;
            for &j in g {
                let (a, b) = self.value_range(j);
                values.extend_from_slice(&self.values[a..b]);
            }
            props.push(p);
        }
        self.props.truncate(ps);
        self.props.extend(props);
        self.values.truncate(vs);
        self.values.extend(values);
    }
}

/// An identifier of up to 8 letters packed into an integer; longer ones give
/// `u64::MAX` and are compared as strings.
#[inline]
fn ident_key(s: &str) -> u64 {
    let b = s.as_bytes();
    if b.len() > 8 {
        return u64::MAX;
    }
    b.iter().fold(0u64, |k, &c| (k << 8) | c as u64)
}

#[inline]
fn is_ws(c: u8) -> bool {
    // Space, TAB, LF, VT, FF, CR and NUL (padding) as a bit mask.
    const MASK: u64 = 1 << b' ' | 1 << b'\t' | 1 << b'\n' | 1 << 0x0b | 1 << 0x0c | 1 << b'\r' | 1;
    c <= b' ' && (MASK >> c) & 1 == 1
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    i
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Start {
    /// `(` ws* `;`
    Strong,
    /// `(` ws* letters ws* `[`
    Weak,
}

/// Whether the `(` at `i` starts a game tree.
fn tree_start(b: &[u8], i: usize) -> Option<Start> {
    let j = skip_ws(b, i + 1);
    match b.get(j) {
        Some(b';') => Some(Start::Strong),
        Some(c) if c.is_ascii_alphabetic() => {
            let mut k = j;
            while k < b.len() && b[k].is_ascii_alphabetic() {
                k += 1;
            }
            let k = skip_ws(b, k);
            (b.get(k) == Some(&b'[')).then_some(Start::Weak)
        }
        _ => None,
    }
}

/// Index of the `]` closing a value whose text starts at `i`, honouring `\` escapes.
#[inline]
fn value_end(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            b']' => return Some(i),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// Parses a whole decoded text. Never fails; see the module docs for recovery rules.
pub fn parse(text: &str) -> Collection<'_> {
    let mut it = Trees::new(text);
    let trees = it.by_ref().map(Tree::shrink).collect();
    Collection { trees, warnings: it.warnings }
}

/// Streaming form of [`parse`]: yields the trees one at a time, so that only one tree's
/// arena is alive at once. File-level issues are in [`Trees::warnings`], complete once
/// the iterator returned `None`.
#[derive(Clone, Debug)]
pub struct Trees<'a> {
    text: &'a str,
    limits: ParseLimits,
    pos: usize,
    started: bool,
    done: bool,
    warnings: Vec<ParseIssue>,
}

impl<'a> Trees<'a> {
    /// A parser over decoded text, with the default [`ParseLimits`].
    pub fn new(text: &'a str) -> Trees<'a> {
        Trees::with_limits(text, ParseLimits::default())
    }

    /// A parser over decoded text with the given limits.
    pub fn with_limits(text: &'a str, limits: ParseLimits) -> Trees<'a> {
        let mut warnings = Vec::new();
        // Offsets are stored as u32: read at most the first 4 GiB (no SGF file is that big).
        let mut text = text;
        if text.len() >= u32::MAX as usize {
            let mut end = u32::MAX as usize - 1;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text = &text[..end];
            warnings.push(ParseIssue { offset: end, kind: IssueKind::InputTooLarge });
        }
        Trees { text, limits, pos: 0, started: false, done: false, warnings }
    }

    /// File-level issues found so far.
    pub fn warnings(&self) -> &[ParseIssue] {
        &self.warnings
    }

    /// File-level issues (call after the iterator is exhausted).
    pub fn into_warnings(self) -> Vec<ParseIssue> {
        self.warnings
    }

    fn warn(&mut self, offset: usize, kind: IssueKind) {
        if self.warnings.len() < MAX_ISSUES {
            self.warnings.push(ParseIssue { offset, kind });
        }
    }
}

impl<'a> Iterator for Trees<'a> {
    type Item = Tree<'a>;

    fn next(&mut self) -> Option<Tree<'a>> {
        if self.done {
            return None;
        }
        let b = self.text.as_bytes();
        let mut pos = self.pos;
        let junk;
        if !self.started {
            self.started = true;
            let paren_starts = || b.iter().enumerate().filter(|&(_, &c)| c == b'(').map(|(i, _)| i);
            let first = paren_starts()
                .find(|&i| tree_start(b, i) == Some(Start::Strong))
                .or_else(|| paren_starts().find(|&i| tree_start(b, i).is_some()));
            let Some(p) = first else {
                self.done = true;
                self.warn(0, IssueKind::NoGameTree);
                return None;
            };
            let ws = skip_ws(b, 0);
            junk = (ws < p).then_some(ws);
            pos = p;
        } else {
            // Top level: find the next tree.
            let mut garbage = None;
            loop {
                pos = skip_ws(b, pos);
                if pos >= b.len() {
                    if let Some(j) = garbage {
                        self.warn(j, IssueKind::TrailingGarbage);
                    }
                    self.done = true;
                    return None;
                }
                if b[pos] == b'(' {
                    if tree_start(b, pos).is_some() {
                        break;
                    }
                    let j = skip_ws(b, pos + 1);
                    if b.get(j) == Some(&b')') {
                        self.warn(pos, IssueKind::EmptyTree);
                        pos = j + 1;
                        continue;
                    }
                }
                garbage.get_or_insert(pos);
                pos += 1;
            }
            junk = garbage;
        }
        let (tree, end) = parse_tree(self.text, pos, junk, self.limits);
        self.pos = end;
        if tree.error.is_some_and(|e| e.kind == IssueKind::UnterminatedValue) {
            // The rest of the input is inside the open value.
            self.done = true;
        }
        Some(tree)
    }
}

/// Parses one tree whose `(` is at `start`; returns it and the offset after its `)`.
#[allow(unused_assignments)] // `close_node!` also runs right before returns
fn parse_tree<'a>(text: &'a str, start: usize, junk: Option<usize>, limits: ParseLimits) -> (Tree<'a>, usize) {
    let b = text.as_bytes();
    let mut t = Tree::new(text, start);
    // Typical files hold one game, about one node per 8 bytes: size the arena from what is
    // left of the text, capped so that each vector stays a small heap block.
    let est = ((b.len() - start) / 8).clamp(16, 2048);
    t.nodes.reserve(est);
    t.props.reserve(est);
    t.values.reserve(est);
    if let Some(j) = junk {
        t.issue(j, IssueKind::JunkBefore);
    }
    let mut pos = start + 1;
    // Saved current node at each open '(' inside the tree.
    let mut stack: Vec<u32> = Vec::new();
    let mut cur: Option<u32> = None;
    // The current node still accepts properties.
    let mut open = false;
    // The current node has a repeated property to merge when it closes.
    let mut repeated = false;
    // The innermost '(' has no node yet.
    let mut empty_var = false;
    // Inside a run of stray characters.
    let mut in_stray = false;
    // Identifiers of the current node, kept only once it has many properties.
    let mut node_idents: HashSet<String> = HashSet::new();
    let mut idents_node: Option<u32> = None;
    // Packed identifiers of the current node's properties (see `ident_key`).
    let mut keys: Vec<u64> = Vec::with_capacity(16);
    let mut keys_node: Option<u32> = None;

    macro_rules! close_node {
        () => {
            if open {
                if repeated {
                    if let Some(c) = cur {
                        t.merge_repeats(c);
                    }
                    repeated = false;
                }
                open = false;
            }
        };
    }

    // A limit was crossed at `pos`: the tree is an error; skip to its end.
    macro_rules! over_limit {
        ($kind:expr, $depth:expr) => {{
            close_node!();
            let e = ParseIssue { offset: pos, kind: $kind };
            t.counts[e.kind as usize] += 1;
            t.error = Some(e);
            t.limit = Some(if $kind == IssueKind::TooDeep { limits.max_depth } else { limits.max_nodes });
            return (t, skip_tree(b, pos, $depth));
        }};
    }

    loop {
        let Some(&c) = b.get(pos) else {
            close_node!();
            t.issue(b.len(), IssueKind::MissingCloseParen);
            return (t, b.len());
        };
        match c {
            b';' => {
                if t.nodes.len() >= limits.max_nodes as usize {
                    over_limit!(IssueKind::TooManyNodes, stack.len() + 1);
                }
                close_node!();
                let id = t.new_node(cur);
                cur = Some(id);
                open = true;
                empty_var = false;
                in_stray = false;
                pos += 1;
            }
            b'(' => {
                close_node!();
                in_stray = false;
                match cur {
                    Some(n) => {
                        if stack.len() >= limits.max_depth as usize {
                            over_limit!(IssueKind::TooDeep, stack.len() + 1);
                        }
                        stack.push(n);
                        empty_var = true;
                    }
                    None => t.issue(pos, IssueKind::StrayChar),
                }
                pos += 1;
            }
            b')' => {
                close_node!();
                in_stray = false;
                if empty_var {
                    t.issue(pos, IssueKind::EmptyVariation);
                    empty_var = false;
                }
                pos += 1;
                match stack.pop() {
                    Some(n) => cur = Some(n),
                    None => return (t, pos),
                }
            }
            b'[' => {
                in_stray = false;
                t.issue(pos, IssueKind::StrayValue);
                match value_end(b, pos + 1) {
                    Some(e) => pos = e + 1,
                    None => {
                        close_node!();
                        let e = ParseIssue { offset: pos, kind: IssueKind::UnterminatedValue };
                        t.counts[e.kind as usize] += 1;
                        t.error = Some(e);
                        return (t, b.len());
                    }
                }
            }
            c if c.is_ascii_alphabetic() => {
                in_stray = false;
                let id_start = pos;
                let mut upper = 0usize;
                while pos < b.len() && b[pos].is_ascii_alphabetic() {
                    upper += b[pos].is_ascii_uppercase() as usize;
                    pos += 1;
                }
                let raw = &text[id_start..pos];
                // (id_owned, id_len): NONE = the text holds the identifier as is.
                let ident: Option<(u32, u32)> = if raw.len() > u16::MAX as usize {
                    None
                } else if upper == raw.len() {
                    Some((NONE, raw.len() as u32))
                } else if upper > 0 {
                    t.issue(id_start, IssueKind::LowercaseIdent);
                    let at = t.owned.len() as u32;
                    t.owned.extend(raw.chars().filter(|c| c.is_ascii_uppercase()));
                    Some((at, upper as u32))
                } else if raw.len() <= 2 {
                    t.issue(id_start, IssueKind::LowercaseIdent);
                    let at = t.owned.len() as u32;
                    t.owned.push_str(&raw.to_ascii_uppercase());
                    Some((at, raw.len() as u32))
                } else {
                    None
                };
                let val_start = t.values.len();
                loop {
                    let j = skip_ws(b, pos);
                    if b.get(j) != Some(&b'[') {
                        break;
                    }
                    match value_end(b, j + 1) {
                        Some(e) => {
                            t.values.push(&text[j + 1..e]);
                            pos = e + 1;
                        }
                        None => {
                            t.values.truncate(val_start);
                            close_node!();
                            let e = ParseIssue { offset: j, kind: IssueKind::UnterminatedValue };
                            t.counts[e.kind as usize] += 1;
                            t.error = Some(e);
                            return (t, b.len());
                        }
                    }
                }
                let Some((id_owned, id_len)) = ident else {
                    t.issue(id_start, IssueKind::DroppedIdent);
                    t.values.truncate(val_start);
                    continue;
                };
                if t.values.len() == val_start {
                    t.issue(id_start, IssueKind::MissingValue);
                    continue;
                }
                if !open {
                    if t.nodes.len() >= limits.max_nodes as usize {
                        pos = id_start;
                        over_limit!(IssueKind::TooManyNodes, stack.len() + 1);
                    }
                    t.issue(id_start, IssueKind::MissingSemicolon);
                    let id = t.new_node(cur);
                    cur = Some(id);
                    open = true;
                    empty_var = false;
                }
                let node = cur.expect("invariant: an open node exists");
                let ps = t.nodes[node as usize].prop_start as usize;
                let prop = Prop { offset: id_start as u32, id_owned, id_len, val_start: val_start as u32 };
                let ident = t.ident(&prop);
                if keys_node != Some(node) {
                    keys.clear();
                    keys_node = Some(node);
                }
                let key = ident_key(ident);
                let dup = if t.props.len() - ps < 16 {
                    // Identifiers of up to 8 letters compare as integers.
                    keys.iter().zip(&t.props[ps..]).any(|(&k, p)| k == key && (key != u64::MAX || t.ident(p) == ident))
                } else {
                    // Many properties in one node: a set instead of a linear scan.
                    if idents_node != Some(node) {
                        node_idents.clear();
                        node_idents.extend(t.props[ps..].iter().map(|p| t.ident(p).to_string()));
                        idents_node = Some(node);
                    }
                    !node_idents.insert(ident.to_string())
                };
                if dup {
                    t.issue(id_start, IssueKind::RepeatedProperty);
                    repeated = true;
                }
                keys.push(key);
                t.props.push(prop);
            }
            c if is_ws(c) => pos += 1,
            _ => {
                if !in_stray {
                    t.issue(pos, IssueKind::StrayChar);
                    in_stray = true;
                }
                pos += 1;
            }
        }
    }
}

/// The offset after the `)` that closes a tree in which `depth` parentheses are open at
/// `pos` (values skipped with their escapes); the end of the text if it never closes.
fn skip_tree(b: &[u8], mut pos: usize, mut depth: usize) -> usize {
    while let Some(&c) = b.get(pos) {
        match c {
            b'[' => match value_end(b, pos + 1) {
                Some(e) => pos = e,
                None => return b.len(),
            },
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return pos + 1;
                }
            }
            _ => {}
        }
        pos += 1;
    }
    b.len()
}

// ---------------------------------------------------------------------------------------
// Value text

/// True when `raw` needs no escape or whitespace processing.
#[inline]
fn plain(raw: &str) -> bool {
    // Line breaks, tabs, VT and FF are all below 0x20; other control characters take the
    // slow path too, which copies them unchanged.
    !raw.bytes().any(|c| c < 0x20 || c == b'\\')
}

fn text_impl(raw: &str, hard_break: char) -> String {
    if plain(raw) {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut it = raw.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\\' => match it.next() {
                // Soft line break: backslash + any line break, removed.
                Some('\r') => {
                    it.next_if_eq(&'\n');
                }
                Some('\n') => {
                    it.next_if_eq(&'\r');
                }
                Some('\t' | '\x0b' | '\x0c') => out.push(' '),
                Some(other) => out.push(other),
                None => {}
            },
            '\r' => {
                it.next_if_eq(&'\n');
                out.push(hard_break);
            }
            '\n' => {
                it.next_if_eq(&'\r');
                out.push(hard_break);
            }
            '\t' | '\x0b' | '\x0c' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// SGF **Text**: `\` escapes the next character, backslash + line break (a soft break) is
/// removed, other line breaks (LF, CR, CRLF, LFCR) become `\n`, other whitespace a space.
/// This is sgfmill's `text_value`.
pub fn text_value(raw: &str) -> String {
    text_impl(raw, '\n')
}

/// SGF **SimpleText**: as [`text_value`], but hard line breaks become a space too.
/// Not trimmed.
pub fn simple_text(raw: &str) -> String {
    text_impl(raw, ' ')
}

/// [`simple_text`] that borrows when nothing needs changing (points, numbers).
pub fn unescape(raw: &str) -> Cow<'_, str> {
    if plain(raw) {
        Cow::Borrowed(raw)
    } else {
        Cow::Owned(simple_text(raw))
    }
}

/// Splits a Compose value `a:b` at its first unescaped `:` (both halves still raw).
pub fn split_compose(raw: &str) -> Option<(&str, &str)> {
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b':' => return Some((&raw[..i], &raw[i + 1..])),
            _ => i += 1,
        }
    }
    None
}
