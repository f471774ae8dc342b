//! `gen`: see DESIGN.md, module map.
