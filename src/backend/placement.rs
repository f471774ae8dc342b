//! Where a device is: the host, and the scheduler's job, array task and
//! node when a scheduler started the process. Recorded with every device
//! (`DeviceInfo::placement`), so a fleet's results say which GPU on which
//! node ran what.
//!
//! The variables, and where each is defined:
//! - Slurm sets `SLURM_JOB_ID`, `SLURM_ARRAY_JOB_ID`, `SLURM_ARRAY_TASK_ID`
//!   and `SLURMD_NODENAME` in a job's environment (sbatch(1), "OUTPUT
//!   ENVIRONMENT VARIABLES"; srun(1) for `SLURMD_NODENAME`).
//! - Kubernetes sets `JOB_COMPLETION_INDEX` in each pod of an Indexed Job
//!   (kubernetes.io/docs/concepts/workloads/controllers/job/, "Completion
//!   mode"). It sets no variable with the node's name: a pod gets it from
//!   the Downward API (`fieldRef: spec.nodeName`,
//!   kubernetes.io/docs/tasks/inject-data-application/environment-variable-expose-pod-information/)
//!   under a name the pod spec chooses. Policy `k8s-node-name`: dsxor reads
//!   `NODE_NAME`, the name most cluster components give it, and the
//!   recipes in the book set it so.

use serde::{Deserialize, Serialize};

/// The variable the `k8s-node-name` policy reads.
pub const ENV_K8S_NODE_NAME: &str = "NODE_NAME";

/// The host and the scheduler's placement of the process that opened a device.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Placement {
    /// The host name (`gethostname`), empty when it cannot be read.
    pub host: String,
    /// `SLURM_JOB_ID`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_job_id: Option<String>,
    /// `SLURM_ARRAY_JOB_ID`: the array's own job id, the same in every task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_array_job_id: Option<String>,
    /// `SLURM_ARRAY_TASK_ID`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_array_task_id: Option<String>,
    /// `SLURMD_NODENAME`: the node as Slurm names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_node: Option<String>,
    /// `JOB_COMPLETION_INDEX` (a Kubernetes Indexed Job's pod index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k8s_job_completion_index: Option<String>,
    /// `NODE_NAME` (policy `k8s-node-name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k8s_node_name: Option<String>,
}

impl Placement {
    /// This process's placement.
    pub fn current() -> Placement {
        Placement::from_lookup(host_name(), |k| std::env::var(k).ok())
    }

    /// From a host name and any variable lookup (tests pass a map). Empty
    /// variables count as unset.
    pub fn from_lookup(host: String, get: impl Fn(&str) -> Option<String>) -> Placement {
        let var = |k: &str| get(k).filter(|v| !v.trim().is_empty());
        Placement {
            host,
            slurm_job_id: var("SLURM_JOB_ID"),
            slurm_array_job_id: var("SLURM_ARRAY_JOB_ID"),
            slurm_array_task_id: var("SLURM_ARRAY_TASK_ID"),
            slurm_node: var("SLURMD_NODENAME"),
            k8s_job_completion_index: var("JOB_COMPLETION_INDEX"),
            k8s_node_name: var(ENV_K8S_NODE_NAME),
        }
    }

    /// The node, as the scheduler names it when one placed the process,
    /// else the host name.
    pub fn node(&self) -> &str {
        self.slurm_node
            .as_deref()
            .or(self.k8s_node_name.as_deref())
            .unwrap_or(&self.host)
    }
}

/// `gethostname(2)`; empty when it fails.
pub fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its length; gethostname writes at
    // most that many bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_variables_and_the_node() {
        let env = [
            ("SLURM_JOB_ID", "41"),
            ("SLURM_ARRAY_JOB_ID", "40"),
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURMD_NODENAME", "gpu07"),
            ("JOB_COMPLETION_INDEX", ""),
        ];
        let p = Placement::from_lookup("h".into(), |k| {
            env.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        });
        assert_eq!(p.slurm_job_id.as_deref(), Some("41"));
        assert_eq!(p.slurm_array_task_id.as_deref(), Some("1"));
        assert_eq!(p.k8s_job_completion_index, None, "empty is unset");
        assert_eq!(p.node(), "gpu07");
        let k = Placement::from_lookup("h".into(), |k| (k == "NODE_NAME").then(|| "n1".into()));
        assert_eq!(k.node(), "n1");
        assert_eq!(Placement::from_lookup("h".into(), |_| None).node(), "h");
    }
}
