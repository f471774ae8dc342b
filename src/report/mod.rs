//! `report`: see DESIGN.md, module map.

pub mod bench_record;
pub mod console;
pub mod junit;
pub mod markdown;
pub mod results;
pub mod svg;
