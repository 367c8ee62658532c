//! `--device PATH`, `--allow-destroy`, `--force`: the flags a command
//! that can run on a raw block device shares (docs/device.md).

use crate::env::device::{self, Access, BlockDevice};
use crate::error::{UsageError, shown_path};
use std::path::PathBuf;

/// A raw block device to run on, and what the user allows done to it.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct DeviceArgs {
    /// Run on this raw block device (e.g. /dev/nvme0n1p3) instead of files: no layout, nothing created or removed; sizes default to the device's. Reads only unless --allow-destroy.
    #[arg(long, value_name = "PATH", help_heading = "Block device")]
    pub device: Option<PathBuf>,
    /// Let the run write to the --device, destroying what it holds.
    #[arg(long, requires = "device", help_heading = "Block device")]
    pub allow_destroy: bool,
    /// Write to the --device even when it is mounted, in use (swap, LVM, md, held open exclusively) or holds a file system or partition table.
    #[arg(long, requires = "device", help_heading = "Block device")]
    pub force: bool,
}

impl DeviceArgs {
    /// The device checked for a run that writes (`write`) or only reads,
    /// with O_DIRECT when `direct`; `None` without `--device`. A refusal is
    /// a usage error naming the device (a write without --allow-destroy
    /// ends with `reads_only`, how to run this command reading only); a
    /// read of a device in use is said on stderr.
    pub fn check(
        &self,
        write: bool,
        direct: bool,
        reads_only: &str,
    ) -> anyhow::Result<Option<BlockDevice>> {
        let Some(path) = &self.device else {
            return Ok(None);
        };
        let access = Access {
            write,
            allow_destroy: self.allow_destroy,
            force: self.force,
            direct,
        };
        let dev = device::check(path, access).map_err(|why| {
            let hint = match why {
                device::Refusal::Destroy(_) => format!(", or {reads_only}"),
                _ => String::new(),
            };
            UsageError::new(format!("--device {}: {why}{hint}", shown_path(path)))
        })?;
        for note in &dev.notes {
            eprintln!(
                "iogauge: note: --device {} {note}; {}",
                shown_path(&dev.path),
                if write {
                    "writing anyway (--force)"
                } else {
                    "the run only reads it"
                }
            );
        }
        Ok(Some(dev))
    }
}
