//! `dsxor info`.

use super::*;

pub(crate) fn cmd_info(json: bool, require_device: bool, device: Option<u32>) -> Outcome {
    use std::io::Write;
    let info = dsxor::hip::info::Info::gather();
    // Write errors (a closed pipe under `| head`) are ignored, as `kernels`
    // does: the exit code still reports the device check below.
    let mut so = std::io::stdout().lock();
    if json {
        let text = serde_json::to_string_pretty(&info).map_err(environment)?;
        let _ = writeln!(so, "{text}");
    } else {
        let _ = write!(so, "{}", info.render_text());
    }
    if let Some(n) = device {
        use dsxor::backend::Backend;
        let backend = dsxor::backend::hip::HipBackend::open(Some(n)).map_err(environment)?;
        let d = backend.info();
        if !json {
            let _ = writeln!(
                so,
                "device {n} opened: {} ({}), runs {:?}",
                d.name, d.target_id, d.wave_sizes
            );
        }
    } else if require_device && !info.has_usable_device() {
        let reason = info
            .no_device_reason
            .clone()
            .unwrap_or_else(|| "no usable HIP device".to_string());
        return Err(environment(anyhow::anyhow!(reason)));
    }
    Ok(dsxor::exit::PASS)
}
