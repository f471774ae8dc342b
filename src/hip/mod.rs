//! `hip`: see DESIGN.md, module map.
