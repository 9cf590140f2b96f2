//! YAML documents as JSON values, with the source line of every node kept by JSON Pointer.
//!
//! Case files and the route table are YAML; validation and deserialization work on JSON values,
//! and every error is reported at the line of the node it concerns.

use std::collections::HashMap;

use saphyr::{LoadableYamlNode, MarkedYamlOwned, ScalarOwned, YamlDataOwned};
use serde_json::{Map, Number, Value};

/// Lines of the nodes of one document, by JSON Pointer (RFC 6901).
#[derive(Debug, Default, Clone)]
pub struct LineIndex(HashMap<String, usize>);

impl LineIndex {
    /// The line of the node at `pointer`, or of its nearest ancestor that has one.
    pub fn line_of(&self, pointer: &str) -> usize {
        let mut p = pointer;
        loop {
            if let Some(line) = self.0.get(p) {
                return *line;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return self.0.get("").copied().unwrap_or(1),
            }
        }
    }
}

/// A YAML syntax or shape problem, at a line.
#[derive(Debug, Clone)]
pub struct YamlError {
    pub line: usize,
    pub message: String,
}

/// Parses one YAML document into a JSON value and the line index of its nodes.
pub fn parse(source: &str) -> Result<(Value, LineIndex), YamlError> {
    let docs = MarkedYamlOwned::load_from_str(source).map_err(|e| YamlError {
        line: e.marker().line(),
        message: e.info().to_string(),
    })?;
    let mut docs = docs.into_iter();
    let Some(doc) = docs.next() else {
        return Err(YamlError {
            line: 1,
            message: "the file holds no YAML document".into(),
        });
    };
    if let Some(extra) = docs.next() {
        return Err(YamlError {
            line: extra.span.start.line(),
            message: "only one YAML document per file is allowed".into(),
        });
    }
    let mut index = LineIndex::default();
    let value = convert(&doc, String::new(), &mut index)?;
    Ok((value, index))
}

fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn convert(
    node: &MarkedYamlOwned,
    pointer: String,
    index: &mut LineIndex,
) -> Result<Value, YamlError> {
    let line = node.span.start.line();
    index.0.insert(pointer.clone(), line);
    let value = match &node.data {
        YamlDataOwned::Value(scalar) => scalar_to_json(scalar, line)?,
        YamlDataOwned::Representation(text, _, _) => Value::String(text.clone()),
        YamlDataOwned::Sequence(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(convert(item, format!("{pointer}/{i}"), index)?);
            }
            Value::Array(out)
        }
        YamlDataOwned::Mapping(entries) => {
            let mut out = Map::new();
            for (key, item) in entries {
                let key_text = match &key.data {
                    YamlDataOwned::Value(ScalarOwned::String(s)) => s.clone(),
                    YamlDataOwned::Value(ScalarOwned::Integer(i)) => i.to_string(),
                    YamlDataOwned::Value(ScalarOwned::Boolean(b)) => b.to_string(),
                    _ => {
                        return Err(YamlError {
                            line: key.span.start.line(),
                            message: "mapping keys must be strings".into(),
                        });
                    }
                };
                let child = format!("{pointer}/{}", escape_token(&key_text));
                let converted = convert(item, child, index)?;
                if out.insert(key_text.clone(), converted).is_some() {
                    return Err(YamlError {
                        line: key.span.start.line(),
                        message: format!("duplicate key `{key_text}`"),
                    });
                }
            }
            Value::Object(out)
        }
        YamlDataOwned::Tagged(_, inner) => convert(inner, pointer, index)?,
        YamlDataOwned::Alias(_) => {
            return Err(YamlError {
                line,
                message: "YAML aliases are not supported in these files".into(),
            });
        }
        YamlDataOwned::BadValue => {
            return Err(YamlError {
                line,
                message: "a value that YAML cannot represent".into(),
            });
        }
    };
    Ok(value)
}

fn scalar_to_json(scalar: &ScalarOwned, line: usize) -> Result<Value, YamlError> {
    Ok(match scalar {
        ScalarOwned::Null => Value::Null,
        ScalarOwned::Boolean(b) => Value::Bool(*b),
        ScalarOwned::Integer(i) => Value::Number((*i).into()),
        ScalarOwned::FloatingPoint(f) => {
            Value::Number(Number::from_f64(f.into_inner()).ok_or_else(|| YamlError {
                line,
                message: "a number that JSON cannot represent (NaN or infinity)".into(),
            })?)
        }
        ScalarOwned::String(s) => Value::String(s.clone()),
    })
}

/// The JSON Pointer of a serde path (`cases[2].request` -> `/cases/2/request`).
pub fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                out.push_str(&format!("/{}", key.replace('~', "~0").replace('/', "~1")))
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_lines_by_pointer() {
        let src = "a: 1\nb:\n  - x\n  - {c: 2}\n";
        let (value, index) = parse(src).unwrap();
        assert_eq!(value["b"][1]["c"], 2);
        assert_eq!(index.line_of("/a"), 1);
        assert_eq!(index.line_of("/b/1/c"), 4);
        assert_eq!(index.line_of("/b/1/missing"), 4);
    }

    #[test]
    fn reports_syntax_error_line() {
        let err = parse("a: 1\nb: [1, 2\nc: 3\n").unwrap_err();
        assert!(err.line >= 2, "{err:?}");
    }

    #[test]
    fn rejects_duplicate_keys() {
        let err = parse("a: 1\na: 2\n").unwrap_err();
        assert_eq!(err.line, 2);
    }
}
