//! THREE.Terrain's Hill method as defined (ALGORITHMS §4): every feature
//! visits every cell and, where its shape reaches, replaces the height by
//! the feature's [`influence`](super::HillFeatures::influence) blended with
//! it. The oracle the fast version, which visits only each feature's
//! bounding box, is tested against.

use super::{Feature, HillFeatures};
use crate::heightmap::Heightmap;

/// Applies every feature to `map`, feature by feature, cell by cell.
pub fn apply_features(stage: &HillFeatures, map: &mut Heightmap, features: &[Feature]) {
    let (w, h) = (map.width(), map.height());
    for f in features {
        for y in 0..h {
            for x in 0..w {
                if let Some(v) = stage.influence(f, x as i64 - f.cx, y as i64 - f.cy, map.get(x, y))
                {
                    map.set(x, y, v);
                }
            }
        }
    }
}
