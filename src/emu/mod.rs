//! `emu`: see DESIGN.md, module map.
