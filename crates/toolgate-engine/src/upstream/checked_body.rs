//! A reply body that passed its checks, as it travels to the answer.

use std::ops::Deref;

use toolgate_contract::EscapeSites;

/// A successful reply's body: the bytes as they arrived, and, when the contract's
/// check found them on its way, where those bytes need escaping inside a JSON string.
/// The answer writes the body a second time escaped into its text block; with the
/// sites known it copies the runs between them instead of searching the body again.
#[derive(Debug, Clone)]
pub struct CheckedBody {
    bytes: bytes::Bytes,
    escapes: Option<EscapeSites>,
}

impl CheckedBody {
    /// A body checked by a read that noted its escapes.
    pub fn with_escapes(bytes: bytes::Bytes, escapes: EscapeSites) -> CheckedBody {
        CheckedBody {
            bytes,
            escapes: Some(escapes),
        }
    }

    /// The bytes, as they arrived.
    pub fn bytes(&self) -> &bytes::Bytes {
        &self.bytes
    }

    /// Where the bytes need escaping inside a JSON string, when known.
    pub fn escapes(&self) -> Option<&EscapeSites> {
        self.escapes.as_ref()
    }

    /// The bytes and the escape sites, apart.
    pub fn into_parts(self) -> (bytes::Bytes, Option<EscapeSites>) {
        (self.bytes, self.escapes)
    }
}

/// A body whose escapes were not noted (checked the full way, or not JSON text).
impl From<bytes::Bytes> for CheckedBody {
    fn from(bytes: bytes::Bytes) -> CheckedBody {
        CheckedBody {
            bytes,
            escapes: None,
        }
    }
}

impl Deref for CheckedBody {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}
