//! A window: a rectangle of the world's cells, in the cells of the export
//! grid (the whole map). The whole map is the largest window.

use crate::heightmap::Heightmap;
use serde::{Deserialize, Serialize};

/// A rectangle of cells: column `x`, row `y` (row 0 north), `width` ×
/// `height` cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    /// First column, from the west edge.
    pub x: usize,
    /// First row, from the north edge.
    pub y: usize,
    /// Cells west to east.
    pub width: usize,
    /// Cells north to south.
    pub height: usize,
}

/// A window together with the world it is cut from: what a stage needs
/// to compute from world coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorldWindow {
    /// The world's cells west to east (the whole map's width).
    pub world_width: usize,
    /// The world's cells north to south.
    pub world_height: usize,
    /// The window's place and size in the world.
    pub window: Window,
}

/// A window that does not describe cells of the world; each displays as
/// one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    /// The text is not four whole numbers separated by commas.
    #[error("window '{0}': give four whole numbers X,Y,WIDTH,HEIGHT in cells of the map")]
    NotFourNumbers(String),
    /// A number is negative.
    #[error("window: {field} is {value}; cells are counted from 0, so it cannot be negative")]
    Negative {
        /// `x`, `y`, `width` or `height`.
        field: &'static str,
        /// The value given.
        value: i64,
    },
    /// The window holds no cell.
    #[error("window {width}x{height} is empty; it needs at least one cell each way")]
    Empty {
        /// Cells west to east.
        width: usize,
        /// Cells north to south.
        height: usize,
    },
    /// Part of the window lies outside the map.
    #[error(
        "window {width}x{height} at {x},{y} reaches outside the {world_width}x{world_height} map (columns 0..{world_width}, rows 0..{world_height})"
    )]
    Outside {
        /// First column.
        x: usize,
        /// First row.
        y: usize,
        /// Cells west to east.
        width: usize,
        /// Cells north to south.
        height: usize,
        /// The map's width.
        world_width: usize,
        /// The map's height.
        world_height: usize,
    },
}

impl WorldWindow {
    /// The whole `width x height` world as a window.
    pub fn whole(width: usize, height: usize) -> Self {
        Self {
            world_width: width,
            world_height: height,
            window: Window {
                x: 0,
                y: 0,
                width,
                height,
            },
        }
    }

    /// `window` of a `world_width x world_height` world, checked: not
    /// empty and wholly on the map.
    pub fn new(
        world_width: usize,
        world_height: usize,
        window: Window,
    ) -> Result<Self, WindowError> {
        let Window {
            x,
            y,
            width,
            height,
        } = window;
        if width == 0 || height == 0 {
            return Err(WindowError::Empty { width, height });
        }
        let fits = |start: usize, len: usize, world: usize| {
            start.checked_add(len).is_some_and(|end| end <= world)
        };
        if !fits(x, width, world_width) || !fits(y, height, world_height) {
            return Err(WindowError::Outside {
                x,
                y,
                width,
                height,
                world_width,
                world_height,
            });
        }
        Ok(Self {
            world_width,
            world_height,
            window,
        })
    }

    /// Parses `X,Y,WIDTH,HEIGHT` (cells of the map) and checks it against
    /// a `world_width x world_height` world.
    pub fn parse(text: &str, world_width: usize, world_height: usize) -> Result<Self, WindowError> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let numbers: Option<Vec<i64>> = parts.iter().map(|p| p.parse::<i64>().ok()).collect();
        let numbers = match numbers {
            Some(n) if n.len() == 4 => n,
            _ => return Err(WindowError::NotFourNumbers(text.to_string())),
        };
        let mut values = [0usize; 4];
        for ((value, &n), field) in values
            .iter_mut()
            .zip(&numbers)
            .zip(["x", "y", "width", "height"])
        {
            *value = usize::try_from(n).map_err(|_| WindowError::Negative { field, value: n })?;
        }
        let [x, y, width, height] = values;
        Self::new(
            world_width,
            world_height,
            Window {
                x,
                y,
                width,
                height,
            },
        )
    }

    /// Whether the window is the whole world.
    pub fn is_whole(&self) -> bool {
        self.window.x == 0
            && self.window.y == 0
            && self.window.width == self.world_width
            && self.window.height == self.world_height
    }

    /// The world's longer side in cells.
    pub fn world_longer_side(&self) -> usize {
        self.world_width.max(self.world_height)
    }

    /// The same world, another window (unchecked: the caller keeps it on
    /// the map).
    pub fn with_window(&self, window: Window) -> Self {
        Self { window, ..*self }
    }

    /// The window grown by the given cells on each side, clipped to the
    /// world.
    pub fn grown(&self, left: usize, top: usize, right: usize, bottom: usize) -> Self {
        let w = self.window;
        let x0 = w.x.saturating_sub(left);
        let y0 = w.y.saturating_sub(top);
        let x1 = (w.x + w.width).saturating_add(right).min(self.world_width);
        let y1 = (w.y + w.height)
            .saturating_add(bottom)
            .min(self.world_height);
        self.with_window(Window {
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        })
    }

    /// The smallest window holding both.
    pub fn union(&self, other: &WorldWindow) -> Self {
        let (a, b) = (self.window, other.window);
        let x0 = a.x.min(b.x);
        let y0 = a.y.min(b.y);
        let x1 = (a.x + a.width).max(b.x + b.width);
        let y1 = (a.y + a.height).max(b.y + b.height);
        self.with_window(Window {
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        })
    }

    /// The cells of this window out of `map`, which covers `outer` (a
    /// window of the same world holding this one).
    pub fn crop_of(&self, outer: &WorldWindow, map: &Heightmap) -> Heightmap {
        let (a, b) = (self.window, outer.window);
        if a == b {
            return map.clone();
        }
        let (dx, dy) = (a.x - b.x, a.y - b.y);
        let mut data = Vec::with_capacity(a.width * a.height);
        for row in map.data().chunks_exact(b.width).skip(dy).take(a.height) {
            data.extend_from_slice(&row[dx..dx + a.width]);
        }
        Heightmap::from_vec(a.width, a.height, data).unwrap_or_else(|| Heightmap::new(1, 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_windows_are_refused_in_one_line() {
        let e = |t: &str| WorldWindow::parse(t, 513, 257).unwrap_err().to_string();
        assert!(e("1,2,3").contains("four whole numbers"));
        assert!(e("1,2,3,x").contains("four whole numbers"));
        assert!(e("-1,0,4,4").contains("x is -1"));
        assert!(e("0,0,0,4").contains("empty"));
        assert!(e("500,0,14,4").contains("outside the 513x257 map"));
        assert!(e("0,250,4,8").contains("outside"));
        for t in ["1,2,3", "-1,0,4,4", "0,0,0,4", "500,0,14,4"] {
            assert!(!e(t).contains('\n'));
        }
        let w = WorldWindow::parse(" 499, 0,14,257", 513, 257).unwrap();
        assert_eq!(w.window.x + w.window.width, 513);
        assert!(
            WorldWindow::parse("0,0,513,257", 513, 257)
                .unwrap()
                .is_whole()
        );
    }

    #[test]
    fn crops_and_growth_stay_on_the_map() {
        let world = WorldWindow::whole(10, 8);
        let inner = world.with_window(Window {
            x: 2,
            y: 3,
            width: 4,
            height: 2,
        });
        let grown = inner.grown(5, 1, 1, 9);
        assert_eq!(
            grown.window,
            Window {
                x: 0,
                y: 2,
                width: 7,
                height: 6
            }
        );
        let map = Heightmap::from_vec(10, 8, (0..80).map(|v| v as f32).collect()).unwrap();
        let crop = inner.crop_of(&world, &map);
        assert_eq!(
            crop.data(),
            &[32.0, 33.0, 34.0, 35.0, 42.0, 43.0, 44.0, 45.0]
        );
        let twice = inner.crop_of(&grown, &grown.crop_of(&world, &map));
        assert_eq!(twice.data(), crop.data());
    }
}
