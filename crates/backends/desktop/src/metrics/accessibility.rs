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

use super::xml::{self, Element, Node};

#[derive(Debug, Clone, PartialEq)]
enum Test {
    Attribute { name: String, op: Option<String>, value: String },
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
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
        self.at > start
    }

    fn ident(&mut self) -> Result<String, String> {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || c == '-' || c == '_' || !c.is_ascii() {
                out.push(c);
                self.at += 1;
            } else if c == '\\' {
                self.at += 1;
                out.extend(self.peek());
                self.at += 1;
            } else {
                break;
            }
        }
        if out.is_empty() {
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
                        Some('\\') => {
                            self.at += 1;
                            out.extend(self.peek());
                            self.at += 1;
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

    /// A name with an optional namespace prefix (`st|focused`), as `st:focused`.
    fn qualified(&mut self) -> Result<String, String> {
        let first = if self.peek() == Some('*') {
            self.at += 1;
            "*".to_string()
        } else {
            self.ident()?
        };
        if self.peek() == Some('|') && self.chars.get(self.at + 1) != Some(&'=') {
            self.at += 1;
            let local = self.ident()?;
            return Ok(if first == "*" { local } else { format!("{first}:{local}") });
        }
        Ok(first)
    }

    fn compound(&mut self) -> Result<Compound, String> {
        let mut compound = Compound { tag: None, tests: Vec::new() };
        match self.peek() {
            Some('*') => {
                self.at += 1;
                if self.peek() == Some('|') {
                    self.at += 1;
                    compound.tag = Some(self.ident()?);
                }
            }
            Some(c) if c.is_alphanumeric() || c == '-' || c == '_' || c == '\\' => {
                let name = self.qualified()?;
                // Elements are matched by local name: a type's namespace prefix is dropped.
                compound.tag = Some(name.rsplit_once(':').map_or(name.clone(), |(_, l)| l.to_string()));
            }
            _ => {}
        }
        loop {
            match self.peek() {
                Some('[') => {
                    self.at += 1;
                    self.skip_space();
                    let name = self.qualified()?;
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
                    compound.tests.push(Test::Attribute { name, op, value });
                }
                Some('#') => {
                    self.at += 1;
                    compound.tests.push(Test::Attribute { name: "id".into(), op: Some("=".into()), value: self.ident()? });
                }
                Some('.') => {
                    self.at += 1;
                    compound.tests.push(Test::Attribute { name: "class".into(), op: Some("~=".into()), value: self.ident()? });
                }
                Some(':') => {
                    self.at += 1;
                    let name = self.ident()?;
                    let test = match name.as_str() {
                        "first-child" => Test::FirstChild,
                        "last-child" => Test::LastChild,
                        "nth-child" | "contains" => {
                            if self.peek() != Some('(') {
                                return Err(self.error("\"(\" is expected"));
                            }
                            self.at += 1;
                            self.skip_space();
                            let arg = self.string_or_ident()?;
                            self.skip_space();
                            if self.peek() != Some(')') {
                                return Err(self.error("\")\" is expected"));
                            }
                            self.at += 1;
                            if name == "contains" {
                                Test::Contains(arg)
                            } else {
                                Test::NthChild(arg.parse().map_err(|_| self.error(&format!(":nth-child({arg}) is not supported (only a number)")))?)
                            }
                        }
                        other => return Err(self.error(&format!("the pseudo-class :{other} is not supported"))),
                    };
                    compound.tests.push(test);
                }
                _ => break,
            }
        }
        Ok(compound)
    }

    fn complex(&mut self) -> Result<Complex, String> {
        self.skip_space();
        let first = self.compound()?;
        if first.tag.is_none() && first.tests.is_empty() && self.chars.get(self.at.saturating_sub(1)) != Some(&'*') {
            return Err(self.error("a selector is expected"));
        }
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

fn attribute<'e>(e: &'e Element, name: &str) -> Option<&'e str> {
    // Names are compared as written: `st:focused` (a prefix), `name` (none).
    e.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn passes(flat: &Flat, i: usize, test: &Test) -> bool {
    let e = flat.elements[i];
    match test {
        Test::Attribute { name, op, value } => {
            let Some(got) = attribute(e, name) else { return op.as_deref() == Some("!=") };
            match op.as_deref() {
                None => true,
                Some("=") => got == value,
                Some("!=") => got != value,
                Some("~=") => !value.is_empty() && !value.contains(char::is_whitespace) && got.split_whitespace().any(|w| w == value),
                Some("|=") => got == value || got.starts_with(&format!("{value}-")),
                Some("^=") => !value.is_empty() && got.starts_with(value.as_str()),
                Some("$=") => !value.is_empty() && got.ends_with(value.as_str()),
                Some("*=") => !value.is_empty() && got.contains(value.as_str()),
                Some(_) => false,
            }
        }
        Test::FirstChild => flat.parent[i].is_some() && flat.position[i].0 == 1,
        Test::LastChild => flat.parent[i].is_some() && flat.position[i].0 == flat.position[i].1,
        Test::NthChild(n) => flat.parent[i].is_some() && flat.position[i].0 == *n,
        Test::Contains(text) => all_text(e).contains(text.as_str()),
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

/// rapidfuzz's `fuzz.ratio` over 100: twice the longest common subsequence over the total
/// length (1 for two empty texts).
fn ratio(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let mut row = vec![0usize; b.len() + 1];
    for x in &a {
        let mut diagonal = 0;
        for (j, y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y { diagonal + 1 } else { up.max(row[j]) };
            diagonal = up;
        }
    }
    2.0 * row[b.len()] as f64 / (a.len() + b.len()) as f64
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
        let want = want.as_str();
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
