//! `codeobj`: AMDGPU code objects — the ones dsxor embeds and any a user
//! brings. See DESIGN.md, module map.

pub mod embedded;

pub use embedded::{embedded, find_embedded, EmbeddedObject, Origin};
