//! `check_accessibility_tree`: rules over the XML accessibility tree (as OSWorld's
//! `/accessibility` gives it), each selecting elements by CSS selectors and, optionally,
//! comparing the text of the best of them with an expected text, exactly or fuzzily.
//!
//! The selectors are the part of CSS that OSWorld's tasks use: type selectors (`*`, `push-button`),
//! attribute selectors with a namespace prefix as written in the tree (`[st|focused="true"]`)
//! and the operators `= ~= |= ^= $= *= !=`, `#id`, `.class`, `:first-child`, `:last-child`,
//! `:nth-child(n)`, `:contains("text")`, and the descendant and child combinators. Anything else
//! is an error naming it (a task this runner cannot judge, never a silent 0). XPath rules are
//! not supported.

use serde_json::Value;

use super::docs::ratio;
use super::xml::{self, Element, Node};

/// Which namespace an attribute selector asks for.
#[derive(Debug, Clone, PartialEq)]
enum Namespace {
    /// No prefix: attributes without a namespace.
    None,
    /// `*|name`: any namespace, or none.
    Any,
    /// `st|name`: the namespace OSWorld's map gives the prefix.
    Uri(&'static str),
}

#[derive(Debug, Clone, PartialEq)]
enum Test {
    Attribute { namespace: Namespace, local: String, op: Option<String>, value: String },
    FirstChild,
    LastChild,
    NthChild(usize),
    Contains(String),
}

#[derive(Debug, Clone, PartialEq)]
struct Compound {
    /// `None` for `*` or no type.
    tag: Option<String>,
    tests: Vec<Test>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Combinator {
    Descendant,
    Child,
}

/// One selector of a list: compounds from left to right, each joined to the one before it.
#[derive(Debug, Clone, PartialEq)]
struct Complex {
    first: Compound,
    rest: Vec<(Combinator, Compound)>,
}

struct Parser<'a> {
    chars: Vec<char>,
    at: usize,
    source: &'a str,
}

impl<'a> Parser<'a> {
    fn new(source: &'a str) -> Self {
        Parser { chars: source.chars().collect(), at: 0, source }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn error(&self, what: &str) -> String {
        format!("selector \"{}\": {what} at character {}", self.source, self.at + 1)
    }

    fn skip_space(&mut self) -> bool {
        let start = self.at;
        while self.peek().is_some_and(css_space) {
            self.at += 1;
        }
        self.at > start
    }

    /// A CSS escape after its backslash: up to six hex digits (and one space after them), or
    /// the next character as it is.
    fn escape(&mut self) -> Result<char, String> {
        let mut hex = String::new();
        while hex.len() < 6 && self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
            hex.extend(self.peek());
            self.at += 1;
        }
        if hex.is_empty() {
            let c = self.peek().ok_or_else(|| self.error("an escape at the end"))?;
            self.at += 1;
            return Ok(c);
        }
        if self.peek().is_some_and(css_space) {
            self.at += 1;
        }
        let code = u32::from_str_radix(&hex, 16).map_err(|_| self.error("a bad escape"))?;
        Ok(char::from_u32(code).filter(|c| *c != '\0').unwrap_or('\u{fffd}'))
    }

    /// A CSS name: it may not start with a digit, nor with a hyphen then a digit or a hyphen.
    fn ident(&mut self) -> Result<String, String> {
        let start = self.at;
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || !c.is_ascii() {
                out.push(c);
                self.at += 1;
            } else if c == '\\' {
                self.at += 1;
                out.push(self.escape()?);
            } else {
                break;
            }
        }
        let raw = &self.chars[start..self.at];
        let bad_start = match raw {
            [] => true,
            [c, ..] if c.is_ascii_digit() => true,
            ['-', c, ..] if c.is_ascii_digit() || *c == '-' => true,
            _ => false,
        };
        if bad_start {
            self.at = start;
            Err(self.error("a name is expected"))
        } else {
            Ok(out)
        }
    }

    fn string_or_ident(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(q @ ('"' | '\'')) => {
                self.at += 1;
                let mut out = String::new();
                loop {
                    match self.peek() {
                        None => return Err(self.error("an unclosed string")),
                        Some(c) if c == q => {
                            self.at += 1;
                            return Ok(out);
                        }
                        // A backslash before a line end continues the string.
                        Some('\\') if matches!(self.chars.get(self.at + 1), Some('\n' | '\r' | '\u{c}')) => self.at += 2,
                        Some('\\') => {
                            self.at += 1;
                            out.push(self.escape()?);
                        }
                        Some(c) => {
                            out.push(c);
                            self.at += 1;
                        }
                    }
                }
            }
            _ => self.ident(),
        }
    }

    /// An attribute's name with an optional namespace prefix (`st|focused`, `*|focused`);
    /// prefixes are OSWorld's (`st`, `attr`, `cp`, …), as its metric declares them.
    fn attribute_name(&mut self) -> Result<(Namespace, String), String> {
        let first = if self.peek() == Some('*') {
            self.at += 1;
            None
        } else {
            Some(self.ident()?)
        };
        if self.peek() == Some('|') && self.chars.get(self.at + 1) != Some(&'=') {
            self.at += 1;
            let local = self.ident()?;
            let namespace = match first {
                None => Namespace::Any,
                Some(prefix) => Namespace::Uri(
                    guigym_desktop::a11y::NAMESPACES
                        .iter()
                        .find(|(p, _)| *p == prefix)
                        .map(|(_, uri)| *uri)
                        .ok_or_else(|| self.error(&format!("the namespace prefix \"{prefix}\" is not one of OSWorld's")))?,
                ),
            };
            return Ok((namespace, local));
        }
        first.map(|name| (Namespace::None, name)).ok_or_else(|| self.error("an attribute name is expected"))
    }

    /// A type: a role name, `*`, or `*|name`. A namespace prefix on a type is refused: the
    /// trees' elements have none.
    fn type_name(&mut self) -> Result<Option<String>, String> {
        let name = if self.peek() == Some('*') {
            self.at += 1;
            None
        } else {
            Some(self.ident()?)
        };
        if self.peek() == Some('|') && self.chars.get(self.at + 1) != Some(&'=') {
            if name.is_some() {
                return Err(self.error("a namespace prefix on a type is not supported"));
            }
            self.at += 1;
            return self.ident().map(Some);
        }
        if name.as_deref().is_some_and(|n| n.contains(':')) {
            return Err(self.error("a type with a colon is not supported"));
        }
        Ok(name)
    }

    fn compound(&mut self) -> Result<Compound, String> {
        let mut compound = Compound { tag: None, tests: Vec::new() };
        let start = self.at;
        if matches!(self.peek(), Some(c) if c == '*' || c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '\\' || !c.is_ascii()) {
            compound.tag = self.type_name()?;
        }
        let typed = self.at > start;
        loop {
            match self.peek() {
                Some('[') => {
                    self.at += 1;
                    self.skip_space();
                    let (namespace, local) = self.attribute_name()?;
                    self.skip_space();
                    let op = match self.peek() {
                        Some(']') => None,
                        Some('=') => {
                            self.at += 1;
                            Some("=".to_string())
                        }
                        Some(c @ ('~' | '|' | '^' | '$' | '*' | '!')) if self.chars.get(self.at + 1) == Some(&'=') => {
                            self.at += 2;
                            Some(format!("{c}="))
                        }
                        _ => return Err(self.error("an attribute operator is expected")),
                    };
                    self.skip_space();
                    let value = if op.is_some() { self.string_or_ident()? } else { String::new() };
                    self.skip_space();
                    if self.peek() != Some(']') {
                        return Err(self.error("\"]\" is expected"));
                    }
                    self.at += 1;
                    compound.tests.push(Test::Attribute { namespace, local, op, value });
                }
                Some('#') => {
                    self.at += 1;
                    compound.tests.push(Test::Attribute { namespace: Namespace::None, local: "id".into(), op: Some("=".into()), value: self.ident()? });
                }
                Some('.') => {
                    self.at += 1;
                    compound.tests.push(Test::Attribute { namespace: Namespace::None, local: "class".into(), op: Some("~=".into()), value: self.ident()? });
                }
                Some(':') => {
                    self.at += 1;
                    // Pseudo-class names are read without regard to case, as lxml reads them.
                    let name = self.ident()?.to_ascii_lowercase();
                    let test = match name.as_str() {
                        "first-child" => Test::FirstChild,
                        "last-child" => Test::LastChild,
                        "nth-child" | "contains" => {
                            if self.peek() != Some('(') {
                                return Err(self.error("\"(\" is expected"));
                            }
                            self.at += 1;
                            self.skip_space();
                            let arg = if name == "contains" {
                                self.string_or_ident()?
                            } else {
                                let start = self.at;
                                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-') {
                                    self.at += 1;
                                }
                                self.chars[start..self.at].iter().collect()
                            };
                            self.skip_space();
                            if self.peek() != Some(')') {
                                return Err(self.error("\")\" is expected"));
                            }
                            self.at += 1;
                            if name == "contains" {
                                Test::Contains(arg)
                            } else {
                                let number = arg.strip_prefix('+').unwrap_or(&arg);
                                Test::NthChild(number.parse().map_err(|_| self.error(&format!(":nth-child({arg}) is not supported (only a number)")))?)
                            }
                        }
                        other => return Err(self.error(&format!("the pseudo-class :{other} is not supported"))),
                    };
                    compound.tests.push(test);
                }
                _ => break,
            }
        }
        if !typed && compound.tests.is_empty() {
            return Err(self.error("a selector is expected"));
        }
        Ok(compound)
    }

    fn complex(&mut self) -> Result<Complex, String> {
        self.skip_space();
        let first = self.compound()?;
        let mut rest = Vec::new();
        loop {
            let spaced = self.skip_space();
            let combinator = match self.peek() {
                None | Some(',') => break,
                Some('>') => {
                    self.at += 1;
                    self.skip_space();
                    Combinator::Child
                }
                Some('+' | '~') => return Err(self.error("sibling combinators are not supported")),
                Some(_) if spaced => Combinator::Descendant,
                Some(c) => return Err(self.error(&format!("unexpected \"{c}\""))),
            };
            rest.push((combinator, self.compound()?));
        }
        Ok(Complex { first, rest })
    }

    fn list(mut self) -> Result<Vec<Complex>, String> {
        let mut out = vec![self.complex()?];
        while self.peek() == Some(',') {
            self.at += 1;
            out.push(self.complex()?);
        }
        if self.at < self.chars.len() {
            return Err(self.error("unexpected text"));
        }
        Ok(out)
    }
}

/// Whitespace as CSS counts it (not the no-break space, which is part of a name).
fn css_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

/// The tree flattened in document order, each element with its parent and its position among
/// its siblings, so that selectors can look up the chain of ancestors.
struct Flat<'a> {
    elements: Vec<&'a Element>,
    parent: Vec<Option<usize>>,
    /// 1-based position among element siblings, and the number of them.
    position: Vec<(usize, usize)>,
}

fn flatten<'a>(root: &'a Element) -> Flat<'a> {
    // Depth-first, parents before children: document order.
    fn visit<'a>(flat: &mut Flat<'a>, e: &'a Element, me: usize) {
        let kids: Vec<&Element> = e.elements().collect();
        let n = kids.len();
        for (k, child) in kids.into_iter().enumerate() {
            let index = flat.elements.len();
            flat.elements.push(child);
            flat.parent.push(Some(me));
            flat.position.push((k + 1, n));
            visit(flat, child, index);
        }
    }
    let mut flat = Flat { elements: vec![root], parent: vec![None], position: vec![(1, 1)] };
    visit(&mut flat, root, 0);
    flat
}

/// All the text under an element (XPath's `string()`), for `:contains`.
fn all_text(e: &Element) -> String {
    e.children
        .iter()
        .map(|c| match c {
            Node::Text(t) => t.clone(),
            Node::Element(e) => all_text(e),
        })
        .collect()
}

/// The element's text before its first child element, as lxml's `.text`; `None` when empty.
fn leading_text(e: &Element) -> Option<String> {
    let text: String = e
        .children
        .iter()
        .map_while(|c| match c {
            Node::Text(t) => Some(t.as_str()),
            Node::Element(_) => None,
        })
        .collect();
    (!text.is_empty()).then_some(text)
}

/// The namespace a prefix stands for at element `i`: its own or an ancestor's declaration.
fn namespace_of<'a>(flat: &Flat<'a>, i: usize, prefix: &str) -> Option<&'a str> {
    let declaration = format!("xmlns:{prefix}");
    let mut at = Some(i);
    while let Some(k) = at {
        if let Some((_, uri)) = flat.elements[k].attrs.iter().find(|(name, _)| *name == declaration) {
            return Some(uri);
        }
        at = flat.parent[k];
    }
    None
}

/// The first value of the element's attribute named `local` in the namespace asked for
/// (namespace declarations are not attributes).
fn attribute_value<'a>(flat: &Flat<'a>, i: usize, namespace: &Namespace, local: &str) -> Option<&'a str> {
    flat.elements[i]
        .attrs
        .iter()
        .filter(|(name, _)| name != "xmlns" && !name.starts_with("xmlns:"))
        .find(|(name, _)| match (name.split_once(':'), namespace) {
            (None, Namespace::None | Namespace::Any) => name == local,
            (Some((_, l)), Namespace::Any) => l == local,
            (Some((prefix, l)), Namespace::Uri(uri)) => l == local && namespace_of(flat, i, prefix) == Some(*uri),
            _ => false,
        })
        .map(|(_, v)| v.as_str())
}

/// The words of a value as XPath's `normalize-space` splits it.
fn xpath_words(s: &str) -> impl Iterator<Item = &str> {
    s.split([' ', '\t', '\n', '\r']).filter(|w| !w.is_empty())
}

fn passes(flat: &Flat, i: usize, test: &Test) -> bool {
    match test {
        Test::Attribute { namespace, local, op, value } => {
            let Some(got) = attribute_value(flat, i, namespace, local) else { return op.as_deref() == Some("!=") };
            match op.as_deref() {
                None => true,
                Some("=") => got == value,
                Some("!=") => got != value,
                Some("~=") => !value.is_empty() && !value.contains(css_space) && xpath_words(got).any(|w| w == value),
                Some("|=") => got == value || got.starts_with(&format!("{value}-")),
                Some("^=") => !value.is_empty() && got.starts_with(value.as_str()),
                Some("$=") => !value.is_empty() && got.ends_with(value.as_str()),
                Some("*=") => !value.is_empty() && got.contains(value.as_str()),
                Some(_) => false,
            }
        }
        // The root counts as a first (and last, and only) child, as XPath's sibling counts
        // make it.
        Test::FirstChild => flat.position[i].0 == 1,
        Test::LastChild => flat.position[i].0 == flat.position[i].1,
        Test::NthChild(n) => flat.position[i].0 == *n,
        // lxml lowers both sides.
        Test::Contains(text) => all_text(flat.elements[i]).to_lowercase().contains(&text.to_lowercase()),
    }
}

fn matches_compound(flat: &Flat, i: usize, c: &Compound) -> bool {
    c.tag.as_ref().is_none_or(|t| flat.elements[i].name == *t) && c.tests.iter().all(|t| passes(flat, i, t))
}

/// Whether element `i` matches the complex selector from its compound `k` leftwards.
fn matches_from(flat: &Flat, i: usize, s: &Complex, k: usize) -> bool {
    let compound = if k == 0 { &s.first } else { &s.rest[k - 1].1 };
    if !matches_compound(flat, i, compound) {
        return false;
    }
    if k == 0 {
        return true;
    }
    match s.rest[k - 1].0 {
        Combinator::Child => flat.parent[i].is_some_and(|p| matches_from(flat, p, s, k - 1)),
        Combinator::Descendant => {
            let mut up = flat.parent[i];
            while let Some(p) = up {
                if matches_from(flat, p, s, k - 1) {
                    return true;
                }
                up = flat.parent[p];
            }
            false
        }
    }
}

fn select<'a>(flat: &Flat<'a>, selectors: &[Complex]) -> Vec<&'a Element> {
    (0..flat.elements.len()).filter(|&i| selectors.iter().any(|s| matches_from(flat, i, s, s.rest.len()))).map(|i| flat.elements[i]).collect()
}

/// Parses a rule's selectors (joined by ", " as OSWorld joins them); the error names the rule.
fn selectors_of(rule: &Value, k: usize) -> Result<Vec<Complex>, String> {
    if rule.get("xpath").is_some() {
        return Err(format!("check_accessibility_tree: rule {k}: xpath rules are not supported (only CSS selectors)"));
    }
    let list = rule.get("selectors").and_then(Value::as_array).ok_or_else(|| format!("check_accessibility_tree: rule {k}: no selectors"))?;
    let joined = list
        .iter()
        .map(|s| s.as_str().ok_or_else(|| format!("check_accessibility_tree: rule {k}: a selector is not a string")))
        .collect::<Result<Vec<_>, _>>()?
        .join(", ");
    Parser::new(&joined).list().map_err(|e| format!("check_accessibility_tree: rule {k}: {e}"))
}

/// Whether every rule of a task can be judged here (for the importer).
pub fn rules_supported(rules: &Value) -> Result<(), String> {
    let rules = rules.as_array().ok_or("check_accessibility_tree: the rules are not a list")?;
    rules.iter().enumerate().try_for_each(|(k, r)| selectors_of(r, k).map(|_| ()))
}

/// The text (lxml's `.text`: before the first child) of each element `selector` picks in the
/// tree's XML, in document order; a tree that does not parse picks nothing.
pub fn select_texts(tree: &str, selector: &str) -> Result<Vec<Option<String>>, String> {
    let selectors = selectors_of(&serde_json::json!({ "selectors": [selector] }), 0)?;
    let Ok(root) = xml::parse(tree) else { return Ok(Vec::new()) };
    let flat = flatten(&root);
    Ok(select(&flat, &selectors).into_iter().map(leading_text).collect())
}

/// The product over the rules of the best match among the elements each selects (0 when one
/// selects nothing).
pub fn check_accessibility_tree(result: Option<String>, rules: &Value) -> Result<f64, String> {
    let rules = rules.as_array().ok_or("check_accessibility_tree: expected.rules must be a list of rules")?;
    let parsed: Vec<Vec<Complex>> = rules.iter().enumerate().map(|(k, r)| selectors_of(r, k)).collect::<Result<_, _>>()?;
    // OSWorld parses whatever the getter gave; no tree (or a broken one) raises there and
    // selects nothing here.
    let Some(root) = result.and_then(|xml| xml::parse(&xml).ok()) else { return Ok(0.0) };
    let flat = flatten(&root);
    let mut total = 1.0;
    for (k, (rule, selectors)) in rules.iter().zip(&parsed).enumerate() {
        let elements = select(&flat, selectors);
        if elements.is_empty() {
            return Ok(0.0);
        }
        let Some(want) = rule.get("text") else { continue };
        // OSWorld reads `exact` without a default when `text` is given, as a truth value.
        if rule.get("exact").is_none() {
            return Err(format!("check_accessibility_tree: rule {k}: \"text\" without \"exact\""));
        }
        let exact = super::opt(rule, "exact", false);
        let want = match want {
            Value::Null => None,
            Value::String(text) => Some(text.as_str()),
            // A number or a list equals no element's text; rapidfuzz refuses to compare it.
            _ if exact => return Ok(0.0),
            other => return Err(format!("check_accessibility_tree: rule {k}: text {other} is not a string")),
        };
        let best = elements
            .iter()
            .map(|e| {
                let got = leading_text(e);
                if exact {
                    f64::from(u8::from(got.as_deref() == want))
                } else {
                    match (got, want) {
                        (Some(g), Some(w)) => ratio(w, &g),
                        _ => 0.0,
                    }
                }
            })
            .fold(0.0, f64::max);
        total *= best;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TREE: &str = r#"<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state" name="main"><application name="mousepad"><frame name="notes.txt - Mousepad" st:active="true"><menu-bar name=""><menu name="File"/><menu name="Edit"/></menu-bar><scroll-pane name=""><text name="" st:focused="true" st:editable="true">Hello, world</text></scroll-pane><push-button name="Save" attr:id="save-1" xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes"/></frame></application></desktop-frame>"#;

    fn score(rules: Value) -> Result<f64, String> {
        check_accessibility_tree(Some(TREE.to_string()), &rules)
    }

    #[test]
    fn selectors_pick_elements_by_type_attribute_state_and_position() {
        assert_eq!(score(json!([{"selectors": ["application[name=mousepad] text[st|focused=\"true\"]"], "text": "Hello, world", "exact": true}])), Ok(1.0));
        assert_eq!(score(json!([{"selectors": ["frame > text"], "text": "Hello, world", "exact": true}])), Ok(0.0));
        assert_eq!(score(json!([{"selectors": ["frame > scroll-pane > text"]}])), Ok(1.0));
        assert_eq!(score(json!([{"selectors": ["menu-bar > menu:first-child[name='File']", "menu:last-child[name^=Ed]"]}])), Ok(1.0));
        assert_eq!(score(json!([{"selectors": ["menu:nth-child(2)[name=File]"]}])), Ok(0.0));
        assert_eq!(score(json!([{"selectors": ["push-button[attr|id=\"save-1\"]"]}])), Ok(1.0));
        assert_eq!(score(json!([{"selectors": ["push-button[id=\"save-1\"]"]}])), Ok(0.0), "an unprefixed name is not the prefixed attribute");
        assert_eq!(score(json!([{"selectors": ["*:contains('world')"]}, {"selectors": ["menu[name*=dit]"]}])), Ok(1.0));
    }

    #[test]
    fn texts_compare_exactly_or_by_ratio_and_rules_multiply() {
        let fuzzy = score(json!([{"selectors": ["text"], "text": "Hello, World", "exact": false}])).unwrap();
        assert!((fuzzy - 22.0 / 24.0).abs() < 1e-9, "{fuzzy}");
        assert_eq!(score(json!([{"selectors": ["menu"], "text": "File", "exact": true}])), Ok(0.0), "a menu here has a name, no text");
        assert_eq!(score(json!([{"selectors": ["text"], "text": "x", "exact": true}, {"selectors": ["nothing"]}])), Ok(0.0));
        assert!(score(json!([{"selectors": ["text"], "text": "x"}])).is_err(), "OSWorld needs exact with text");
        assert!(score(json!([{"xpath": "//text"}])).is_err());
        assert!(score(json!([{"selectors": ["menu + menu"]}])).is_err());
        assert!(score(json!([{"selectors": ["menu:hover"]}])).is_err());
        assert_eq!(check_accessibility_tree(None, &json!([{"selectors": ["text"]}])), Ok(0.0));
        assert_eq!(ratio("", ""), 1.0);
        assert_eq!(ratio("abc", "abd"), 4.0 / 6.0);
    }
}
