//! `model`: see DESIGN.md, module map.
