//! `isa`: see DESIGN.md, module map.
