//! `bench`: see DESIGN.md, module map.
