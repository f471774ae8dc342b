//! `report`: what runs leave behind — results and bench records (serde
//! types), JUnit XML, SVG plots, Markdown and console tables. See
//! ARCHITECTURE.md, module map; formats in docs/src/reference/formats.md.

pub mod bench_record;
pub mod console;
pub mod junit;
pub mod markdown;
pub mod output;
pub mod results;
pub mod svg;
