//! `report`: see DESIGN.md, module map.

pub mod console;
pub mod junit;
pub mod results;
pub mod bench_record;
pub mod markdown;
pub mod svg;
