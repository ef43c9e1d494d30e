//! A client's JSON object — an HTTP body, a room's WebSocket message, a
//! line of `serve --stdio` — read with each field given once.
//!
//! `serde_json`'s `Value` keeps the last of a repeated key, and other
//! parsers keep the first or refuse (RFC 8259 §4 leaves it to each): a
//! message such as `{"type":"move","move":"4","move":"0"}` would be a
//! different move to a proxy, a log or a client library in front of the
//! server than to the server. Such a message is refused instead.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value as Json};

/// Why a client's text is not a JSON object of distinct fields.
#[derive(Debug)]
pub(crate) enum ObjectError {
    /// Not JSON at all.
    NotJson(serde_json::Error),
    /// JSON, but not an object.
    NotObject,
    /// A field given more than once, by name.
    Repeated(String),
}

impl fmt::Display for ObjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjectError::NotJson(e) => write!(f, "not JSON: {e}"),
            ObjectError::NotObject => f.write_str("not a JSON object"),
            ObjectError::Repeated(name) => write!(f, "the field {name:?} is given twice"),
        }
    }
}

/// Parses `text` as one JSON object whose fields are distinct.
pub(crate) fn client_object(text: &[u8]) -> Result<Map<String, Json>, ObjectError> {
    match serde_json::from_slice::<Fields>(text) {
        Ok(Fields {
            repeated: Some(name),
            ..
        }) => Err(ObjectError::Repeated(name)),
        Ok(Fields { object, .. }) => Ok(object),
        // The fields are any JSON and their names strings: the only type
        // that can be wrong is the whole text's.
        Err(e) if e.is_data() => Err(ObjectError::NotObject),
        Err(e) => Err(ObjectError::NotJson(e)),
    }
}

/// An object read field by field, with the first name given twice.
struct Fields {
    object: Map<String, Json>,
    repeated: Option<String>,
}

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Read;
        impl<'de> Visitor<'de> for Read {
            type Value = Fields;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut fields: A) -> Result<Fields, A::Error> {
                let mut read = Fields {
                    object: Map::new(),
                    repeated: None,
                };
                while let Some(name) = fields.next_key::<String>()? {
                    let value = fields.next_value::<Json>()?;
                    if read.object.contains_key(&name) {
                        read.repeated.get_or_insert(name);
                    } else {
                        read.object.insert(name, value);
                    }
                }
                Ok(read)
            }
        }
        deserializer.deserialize_map(Read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_of_distinct_fields_is_read_as_serde_json_reads_it() {
        let text = br#"{"type":"move","move":"4","nested":{"a":[1,2]}}"#;
        let object = client_object(text).unwrap();
        let expected: Map<String, Json> = serde_json::from_slice(text).unwrap();
        assert_eq!(object, expected);
    }

    #[test]
    fn a_repeated_field_is_refused_by_name() {
        for (text, name) in [
            (&br#"{"type":"move","move":"4","move":"0"}"#[..], "move"),
            (br#"{"type":"move","move":"4","type":"resign"}"#, "type"),
            (br#"{"a\"b":1,"a\"b":1}"#, "a\"b"),
        ] {
            match client_object(text) {
                Err(ObjectError::Repeated(got)) => assert_eq!(got, name),
                other => panic!("{}: {other:?}", String::from_utf8_lossy(text)),
            }
        }
        let shown = client_object(br#"{"move":1,"move":2}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(shown, "the field \"move\" is given twice");
    }

    #[test]
    fn text_that_is_not_an_object_says_which_it_is() {
        for text in [
            &b"{\"move\":"[..],
            b"not json",
            b"",
            b"{\"n\":1e400}",
            b"{} {}",
        ] {
            assert!(
                matches!(client_object(text), Err(ObjectError::NotJson(_))),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        for text in [&b"[]"[..], b"null", b"\"move\"", b"4"] {
            assert!(matches!(client_object(text), Err(ObjectError::NotObject)));
        }
    }
}
