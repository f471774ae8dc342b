//! `report`: see DESIGN.md, module map.

pub mod console;
pub mod junit;
pub mod results;
