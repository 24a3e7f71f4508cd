//! Office files as zip archives of XML parts, read into a small element tree: the document
//! evaluators ask path-like questions ("every paragraph of the body", "the run properties of
//! this run") that a tree answers plainly. Elements are matched by local name: the prefixes in
//! office files are conventional, not guaranteed.

use std::io::Read;
use std::path::Path;

use quick_xml::events::Event;

/// One element: its local name, attributes (as written) and children in order.
#[derive(Debug, Clone, Default)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Node>,
}

#[derive(Debug, Clone)]
pub enum Node {
    Element(Element),
    Text(String),
}

impl Element {
    /// An attribute by its name as written (`r:id`), or else by its local name (`val` finds
    /// `w:val`).
    pub fn attr(&self, name: &str) -> Option<&str> {
        let exact = self.attrs.iter().find(|(k, _)| k == name);
        let local = || self.attrs.iter().find(|(k, _)| k.rsplit_once(':').is_some_and(|(_, l)| l == name));
        exact.or_else(local).map(|(_, v)| v.as_str())
    }

    /// The relationship id an element points through (`r:id`, `r:embed`: any prefixed `id`).
    pub fn rel_id(&self) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k.rsplit_once(':').is_some_and(|(_, l)| l == "id")).map(|(_, v)| v.as_str())
    }

    /// Element children, in order.
    pub fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|c| match c {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    /// Element children with this local name.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.elements().filter(move |e| e.name == name)
    }

    pub fn child(&self, name: &str) -> Option<&Element> {
        self.elements().find(|e| e.name == name)
    }

    /// The first element down a path of local names.
    pub fn path(&self, names: &[&str]) -> Option<&Element> {
        names.iter().try_fold(self, |e, n| e.child(n))
    }

    /// Every descendant with this local name, looking inside matches too.
    pub fn descendants_all<'a>(&'a self, name: &str, out: &mut Vec<&'a Element>) {
        for e in self.elements() {
            if e.name == name {
                out.push(e);
            }
            e.descendants_all(name, out);
        }
    }

    /// The element's direct text.
    pub fn own_text(&self) -> String {
        self.children
            .iter()
            .filter_map(|c| match c {
                Node::Text(t) => Some(t.as_str()),
                Node::Element(_) => None,
            })
            .collect()
    }
}

fn local(name: &str) -> String {
    name.rsplit_once(':').map_or(name, |(_, l)| l).to_string()
}

/// Parses an XML document into its root element.
pub fn parse(xml: &str) -> Result<Element, String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut stack: Vec<Element> = vec![Element::default()];
    let open = |e: &quick_xml::events::BytesStart| -> Result<Element, String> {
        let mut attrs = Vec::new();
        for a in e.attributes() {
            let a = a.map_err(|err| err.to_string())?;
            let value = a.normalized_value(quick_xml::XmlVersion::Implicit1_0).map_err(|err| err.to_string())?.into_owned();
            attrs.push((a.key.as_ref().to_string(), value));
        }
        Ok(Element { name: local(e.name().as_ref()), attrs, children: Vec::new() })
    };
    loop {
        match reader.read_event().map_err(|e| format!("XML: {e}"))? {
            Event::Start(e) => stack.push(open(&e)?),
            Event::Empty(e) => {
                let element = open(&e)?;
                stack.last_mut().expect("the document node stays").children.push(Node::Element(element));
            }
            Event::End(_) => {
                let done = stack.pop().expect("the reader checks nesting");
                stack.last_mut().ok_or("XML: unbalanced end tag")?.children.push(Node::Element(done));
            }
            Event::Text(t) => {
                let text = t.xml10_content().into_owned();
                stack.last_mut().expect("the document node stays").children.push(Node::Text(text));
            }
            Event::GeneralRef(r) => {
                let text = match r.resolve_char_ref().map_err(|e| format!("XML: {e}"))? {
                    Some(c) => c.to_string(),
                    None => {
                        quick_xml::escape::resolve_predefined_entity(r.as_ref()).ok_or_else(|| format!("XML: unknown entity &{};", r.as_ref()))?.to_string()
                    }
                };
                stack.last_mut().expect("the document node stays").children.push(Node::Text(text));
            }
            Event::CData(t) => {
                let text = t.as_ref().to_string();
                stack.last_mut().expect("the document node stays").children.push(Node::Text(text));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if stack.len() != 1 {
        return Err("XML: unclosed element".into());
    }
    let document = stack.pop().expect("checked");
    let root = document.children.into_iter().find_map(|c| match c {
        Node::Element(e) => Some(e),
        Node::Text(_) => None,
    });
    root.ok_or_else(|| "XML: no root element".into())
}

/// An office file opened as a zip archive.
pub struct Package {
    archive: zip::ZipArchive<std::fs::File>,
}

impl Package {
    pub fn open(path: &Path) -> Result<Package, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let archive = zip::ZipArchive::new(file).map_err(|e| format!("{}: not an office file ({e})", path.display()))?;
        Ok(Package { archive })
    }

    /// A part's text, `None` when the archive has no such part.
    pub fn text(&mut self, name: &str) -> Result<Option<String>, String> {
        let Some(bytes) = self.bytes(name)? else { return Ok(None) };
        String::from_utf8(bytes).map(Some).map_err(|e| format!("{}: {e}", name.trim_start_matches('/')))
    }

    /// A part's bytes, `None` when the archive has no such part.
    pub fn bytes(&mut self, name: &str) -> Result<Option<Vec<u8>>, String> {
        let name = name.trim_start_matches('/');
        let mut entry = match self.archive.by_name(name) {
            Ok(e) => e,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(format!("{name}: {e}")),
        };
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).map_err(|e| format!("{name}: {e}"))?;
        Ok(Some(bytes))
    }

    /// A part parsed, `None` when the archive has no such part.
    pub fn xml(&mut self, name: &str) -> Result<Option<Element>, String> {
        self.text(name)?.map(|t| parse(&t).map_err(|e| format!("{name}: {e}"))).transpose()
    }

    /// The targets of a part's relationships of a type (by the type's last path segment),
    /// resolved to part names.
    pub fn related(&mut self, part: &str, kind: &str) -> Result<Vec<(String, String)>, String> {
        let (dir, file) = part.rsplit_once('/').unwrap_or(("", part));
        let rels = format!("{dir}/_rels/{file}.rels");
        let Some(root) = self.xml(&rels)? else { return Ok(Vec::new()) };
        Ok(root
            .all("Relationship")
            .filter(|r| r.attr("Type").is_some_and(|t| t.rsplit('/').next() == Some(kind)))
            .filter_map(|r| Some((r.attr("Id")?.to_string(), resolve(dir, r.attr("Target")?))))
            .collect())
    }
}

/// A relationship target relative to its source's folder, as a part name.
pub(super) fn resolve(dir: &str, target: &str) -> String {
    if let Some(abs) = target.strip_prefix('/') {
        return abs.to_string();
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in target.split('/') {
        match seg {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_attributes_text_and_entities() {
        let root = parse(r#"<?xml version="1.0"?><w:doc xmlns:w="x"><w:p w:val="a&amp;b">one &lt;two&gt;&#65;</w:p><w:br/></w:doc>"#).unwrap();
        assert_eq!(root.name, "doc");
        let p = root.child("p").unwrap();
        assert_eq!(p.attr("val"), Some("a&b"));
        assert_eq!(p.own_text(), "one <two>A");
        assert!(root.child("br").is_some());
        assert_eq!(resolve("ppt/slides", "../slideLayouts/slideLayout1.xml"), "ppt/slideLayouts/slideLayout1.xml");
        assert_eq!(resolve("ppt", "slides/slide1.xml"), "ppt/slides/slide1.xml");
    }
}
