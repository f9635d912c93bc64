//! PNG copies of the report's SVG plots, rasterised in pure Rust (resvg). Text needs a
//! font file: the system's fonts are scanned (no fontconfig library is used) and the
//! first of a few common sans-serif families found stands in for `sans-serif`. Without
//! any font the PNG is drawn without its text, and the caller is told so.
use std::path::Path;

use resvg::{tiny_skia, usvg};

use super::write_bytes;
use crate::error::{Error, Result};

/// Sans-serif families tried, in order, for the SVG's generic `sans-serif`.
const SANS: &[&str] = &[
    "DejaVu Sans",
    "Liberation Sans",
    "Arial",
    "Helvetica",
    "Noto Sans",
    "FreeSans",
];

/// A rasterised plot.
pub struct Png {
    pub bytes: Vec<u8>,
    /// Whether a font was found (otherwise the image has no text).
    pub has_text: bool,
}

/// Rasterises an SVG document at `scale` × its size.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Png> {
    let err = |m: String| Error::Config(format!("cannot rasterise the plot: {m}"));
    let mut opt = usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_system_fonts();
    let families: Vec<String> = db
        .faces()
        .flat_map(|f| f.families.iter().map(|(n, _)| n.clone()))
        .collect();
    let sans = SANS
        .iter()
        .find(|s| families.iter().any(|f| f == *s))
        .map(|s| s.to_string())
        .or_else(|| families.first().cloned());
    let has_text = sans.is_some();
    if let Some(s) = sans {
        db.set_sans_serif_family(s.clone());
        opt.font_family = s;
    }
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| err(e.to_string()))?;
    let size = tree.size();
    let w = (size.width() * scale).ceil() as u32;
    let h = (size.height() * scale).ceil() as u32;
    let mut pixmap =
        tiny_skia::Pixmap::new(w, h).ok_or_else(|| err(format!("bad image size {w}×{h}")))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    let bytes = pixmap.encode_png().map_err(|e| err(e.to_string()))?;
    Ok(Png { bytes, has_text })
}

/// Writes `svg` as a PNG to `path` (2× its size); warns on stderr when no font was found.
pub fn write_png(path: &Path, svg: &str) -> Result<()> {
    let png = svg_to_png(svg, 2.0)?;
    if !png.has_text {
        eprintln!(
            "warning: no font file found on this system: {} has no text; the SVG has it",
            path.display()
        );
    }
    write_bytes(path, &png.bytes)
}
