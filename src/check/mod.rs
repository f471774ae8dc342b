//! `check`: see DESIGN.md, module map.
