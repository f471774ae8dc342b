//! `codeobj`: see DESIGN.md, module map.
