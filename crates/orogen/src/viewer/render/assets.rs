//! The asset stores a terrain upload writes into, as one system parameter.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

/// The meshes, images and materials (of kind `M`) of the terrain.
#[derive(SystemParam)]
pub struct TerrainAssets<'w, M: Material> {
    pub meshes: ResMut<'w, Assets<Mesh>>,
    pub images: ResMut<'w, Assets<Image>>,
    pub materials: ResMut<'w, Assets<M>>,
}
