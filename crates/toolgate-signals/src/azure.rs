//! Azure Resource Manager `x-ms-ratelimit-remaining-*`.
//!
//! Sources:
//! - <https://learn.microsoft.com/azure/azure-resource-manager/management/request-limits-and-throttling>
//!   — ARM returns the remaining requests of the subscription and tenant scopes in
//!   `x-ms-ratelimit-remaining-subscription-reads`, `-subscription-writes`,
//!   `-subscription-deletes`, `-tenant-reads`, `-tenant-writes` (and the
//!   `-subscription-global-reads` / `-global-writes` variants), each an integer count.
//!   The limit itself is not sent.
//! - <https://learn.microsoft.com/troubleshoot/azure/virtual-machines/troubleshooting-throttling-errors>
//!   — resource providers add `x-ms-ratelimit-remaining-resource: <source RP>/<policy or
//!   bucket>;<count>`, e.g. `Microsoft.Compute/HighCostGet;159`, "a separate
//!   x-ms-ratelimit-remaining-resource header" per policy (the documented delete sample
//!   repeats `Microsoft.Compute/DeleteVMScaleSet` with 107 and 587: two windows of one
//!   bucket); the Azure CLI shows several joined with commas,
//!   `Microsoft.Compute/GetVMScaleSet3Min;197,Microsoft.Compute/GetVMScaleSet30Min;1297`.
//!
//! Each scope or bucket becomes a policy; a bucket named twice keeps its smallest count
//! (the window that binds first). Names are normalised by [`crate::quota`]
//! (`Microsoft.Compute/HighCostGet` → `Microsoft.Compute_HighCostGet`).

use crate::headers::has_prefix_ci;
use crate::quota::Collector;
use crate::{Headers, Quota, num};

const PREFIX: &str = "x-ms-ratelimit-remaining-";

pub(crate) fn read(h: &Headers<'_>, out: &mut Collector) {
    let mut found: Vec<(String, u64)> = Vec::new();
    let mut keep = |name: String, n: u64| match found.iter_mut().find(|(p, _)| *p == name) {
        Some((_, existing)) => *existing = (*existing).min(n),
        None => found.push((name, n)),
    };
    for (name, value) in h.iter() {
        let name = name.trim();
        if !has_prefix_ci(name, PREFIX) || name.len() == PREFIX.len() {
            continue;
        }
        let Ok(value) = std::str::from_utf8(value) else {
            continue;
        };
        let scope = name[PREFIX.len()..].to_ascii_lowercase();
        if scope == "resource" {
            for part in value.split(',') {
                let Some((bucket, count)) = part.rsplit_once(';') else {
                    continue;
                };
                let bucket = bucket.trim();
                if let (false, Some(n)) = (bucket.is_empty(), num::parse_u64(count)) {
                    keep(bucket.to_owned(), n);
                }
            }
        } else if let Some(n) = num::parse_u64(value) {
            keep(scope, n);
        }
    }
    for (policy, remaining) in found {
        out.quota(Quota {
            remaining: Some(remaining),
            ..Quota::new(policy)
        });
    }
}

#[cfg(test)]
mod tests;
