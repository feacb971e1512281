// The GPU terrain: CDLOD patches displaced by the height texture, normals
// from the height texture, and the splat's height-band and slope rules
// evaluated per pixel over a texture array of tiles (triplanar on steep
// faces), with map rules read from paged rule-map layers. One file serves
// the main pass and the prepass (shadows, depth).

#import bevy_pbr::{
    mesh_functions,
    mesh_bindings::mesh,
    mesh_view_bindings::view,
    view_transformations::position_world_to_clip,
}

#ifdef PREPASS_PIPELINE
#import bevy_pbr::prepass_io::VertexOutput
#else
#import bevy_pbr::{
    pbr_types,
    pbr_functions,
}
#endif

struct TerrainUniform {
    // half width, half depth, cell size, the map's highest point
    map: vec4<f32>,
    // map width and height in cells (vertices), texels per world unit x and z
    grid: vec4<f32>,
    // tile count, unlit (1 = show the splat colour only), triplanar on, morph start share
    options: vec4<f32>,
    // cells a page of the height texture spans, pages along x, pages per map
    pages: vec4<f32>,
    // the camera position the patches were selected for (all passes morph with it)
    eye: vec4<f32>,
    // CDLOD range per level, four levels per vector
    ranges: array<vec4<f32>, 4>,
    // per tile: low, optimal, high, unused
    bands: array<vec4<f32>, 16>,
    // per tile: slope min and max in degrees (min < 0: no rule)
    slopes: array<vec4<f32>, 16>,
    // per tile: repeats per texel along x and z, offsets along x and z
    tiling: array<vec4<f32>, 16>,
    // per tile: map rule slot (< 0: no rule), low, high, 1 / soft (0: hard)
    map_rules: array<vec4<f32>, 16>,
    // the flow overlay: tint (sRGB) and its opacity at full strength (0: off)
    overlay: vec4<f32>,
}

@group(#{MATERIAL_BIND_GROUP}) @binding(0) var<uniform> terrain: TerrainUniform;
@group(#{MATERIAL_BIND_GROUP}) @binding(1) var heights: texture_2d_array<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(2) var tiles: texture_2d_array<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(3) var tiles_sampler: sampler;
@group(#{MATERIAL_BIND_GROUP}) @binding(4) var flow: texture_2d<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(5) var flow_sampler: sampler;
@group(#{MATERIAL_BIND_GROUP}) @binding(6) var rule_maps: texture_2d_array<f32>;

struct PatchVertex {
    @builtin(instance_index) instance_index: u32,
    @location(0) position: vec3<f32>,
}

fn map_size() -> vec2<i32> {
    return vec2<i32>(terrain.grid.xy);
}

// A cell's height: large maps are pages of one array texture, sharing
// their edges; the last page along each axis takes the far edge.
fn height_at_cell(cell: vec2<i32>) -> f32 {
    let at = page_texel(cell);
    return textureLoad(heights, at.xy, at.z, 0).r;
}

// Where a cell lies in the paged layout: texel x, y and the layer.
fn page_texel(cell: vec2<i32>) -> vec3<i32> {
    let size = map_size();
    let c = clamp(cell, vec2<i32>(0), size - vec2<i32>(1));
    let page_cells = i32(terrain.pages.x);
    let columns = i32(terrain.pages.y);
    let last = (size - vec2<i32>(2)) / page_cells;
    let page = min(c / page_cells, max(last, vec2<i32>(0)));
    let layer = page.y * columns + page.x;
    return vec3<i32>(c - page * page_cells, layer);
}

// Map cell coordinates (fractional) of a world xz position.
fn cell_of(world_xz: vec2<f32>) -> vec2<f32> {
    return (world_xz + terrain.map.xy) / terrain.map.z;
}

fn height_bilinear(cell: vec2<f32>) -> f32 {
    let base = floor(cell);
    let f = cell - base;
    let c = vec2<i32>(base);
    let h00 = height_at_cell(c);
    let h10 = height_at_cell(c + vec2<i32>(1, 0));
    let h01 = height_at_cell(c + vec2<i32>(0, 1));
    let h11 = height_at_cell(c + vec2<i32>(1, 1));
    return mix(mix(h00, h10, f.x), mix(h01, h11, f.x), f.y);
}

// Height gradient per world unit at a cell: central differences, one-sided
// at the edges (the CPU splat's slope map and mesh normals).
fn gradient_at_cell(cell: vec2<i32>) -> vec2<f32> {
    let size = map_size();
    let c = clamp(cell, vec2<i32>(0), size - vec2<i32>(1));
    let l = max(c - vec2<i32>(1), vec2<i32>(0));
    let r = min(c + vec2<i32>(1), size - vec2<i32>(1));
    let dx = (height_at_cell(vec2<i32>(r.x, c.y)) - height_at_cell(vec2<i32>(l.x, c.y)))
        / (max(f32(r.x - l.x), 1.0) * terrain.map.z);
    let dz = (height_at_cell(vec2<i32>(c.x, r.y)) - height_at_cell(vec2<i32>(c.x, l.y)))
        / (max(f32(r.y - l.y), 1.0) * terrain.map.z);
    return vec2<f32>(dx, dz);
}

fn slope_degrees(g: vec2<f32>) -> f32 {
    return degrees(atan(length(g)));
}

// The displaced world position of a patch vertex, morphed towards the
// coarser grid as it nears the end of its level's range.
fn displace(v: PatchVertex) -> vec3<f32> {
    let world_from_local = mesh_functions::get_world_from_local(v.instance_index);
    let origin = world_from_local[3].xz;
    let level = u32(clamp(round(world_from_local[3].y), 0.0, 15.0));
    let side = world_from_local[0].x;
    let height_scale = world_from_local[1].y;
    let spacing = terrain.map.z * exp2(f32(level));
    let range = terrain.ranges[level / 4u][level % 4u];
    let start = range * terrain.options.w;
    let half_extent = terrain.map.xy;

    var xz = origin + v.position.xz * side;
    // The LOD distance (lod.rs, lod_distance): horizontal, and the
    // camera's height above the map's highest point.
    let before = clamp(xz, -half_extent, half_extent);
    let eye = terrain.eye.xyz;
    let above_top = max(eye.y - terrain.map.w * height_scale, 0.0);
    let distance = length(vec3<f32>(eye.x - before.x, above_top, eye.z - before.y));
    let morph = clamp((distance - start) / (range - start), 0.0, 1.0);
    // Odd vertices of this level's grid (counted from the map's corner)
    // slide onto the even ones, the next coarser level's grid.
    let grid = round((xz + half_extent) / spacing);
    let odd = grid - 2.0 * floor(grid * 0.5);
    xz = clamp(xz - odd * spacing * morph, -half_extent, half_extent);
    let h = height_bilinear(cell_of(xz)) * height_scale;
    return vec3<f32>(xz.x, h, xz.y);
}

// Normal from the bilinear height gradient, with the view's exaggeration.
fn normal_at(world_xz: vec2<f32>, height_scale: f32) -> vec3<f32> {
    let cell = cell_of(world_xz);
    let base = floor(cell);
    let f = cell - base;
    let c = vec2<i32>(base);
    let g = mix(
        mix(gradient_at_cell(c), gradient_at_cell(c + vec2<i32>(1, 0)), f.x),
        mix(gradient_at_cell(c + vec2<i32>(0, 1)), gradient_at_cell(c + vec2<i32>(1, 1)), f.x),
        f.y,
    ) * height_scale;
    return normalize(vec3<f32>(-g.x, 1.0, -g.y));
}

#ifdef PREPASS_PIPELINE

@vertex
fn vertex(v: PatchVertex) -> VertexOutput {
    var out: VertexOutput;
    let world = displace(v);
    out.world_position = vec4<f32>(world, 1.0);
    out.position = position_world_to_clip(world);
#ifdef UNCLIPPED_DEPTH_ORTHO_EMULATION
    out.unclipped_depth = out.position.z;
    out.position.z = min(out.position.z, 1.0);
#endif
#ifdef NORMAL_PREPASS_OR_DEFERRED_PREPASS
    let world_from_local = mesh_functions::get_world_from_local(v.instance_index);
    out.world_normal = normal_at(world.xz, world_from_local[1].y);
#endif
#ifdef MOTION_VECTOR_PREPASS
    out.previous_world_position = out.world_position;
#endif
#ifdef VERTEX_OUTPUT_INSTANCE_INDEX
    out.instance_index = v.instance_index;
#endif
    return out;
}

#else

struct TerrainVaryings {
    @builtin(position) position: vec4<f32>,
    @location(0) world_position: vec4<f32>,
    @location(1) @interpolate(flat) instance_index: u32,
}

@vertex
fn vertex(v: PatchVertex) -> TerrainVaryings {
    var out: TerrainVaryings;
    let world = displace(v);
    out.world_position = vec4<f32>(world, 1.0);
    out.position = position_world_to_clip(world);
    out.instance_index = v.instance_index;
    return out;
}

// The splat's weight rules (orogen_core::splat::weights_at), per pixel.
fn visibility(i: u32, count: u32, v: f32) -> f32 {
    let band = terrain.bands[i];
    let low = band.x;
    let optimal = band.y;
    let high = band.z;
    if v == optimal {
        return 1.0;
    }
    if v < optimal {
        if i == 0u {
            return 1.0;
        }
        if v <= low {
            return 0.0;
        }
        return (v - low) / (optimal - low);
    }
    if i + 1u == count {
        return 1.0;
    }
    if v >= high {
        return 0.0;
    }
    return (high - v) / (high - optimal);
}

fn slope_factor(i: u32, degrees_: f32) -> f32 {
    let rule = terrain.slopes[i];
    if rule.x < 0.0 {
        return 1.0;
    }
    let soft = 5.0;
    let above = clamp(((rule.y + soft) - degrees_) / soft, 0.0, 1.0);
    let below = clamp((degrees_ - (rule.x - soft)) / soft, 0.0, 1.0);
    if rule.x <= 0.0 {
        return above;
    }
    return min(below, above);
}

// A rule map's value at a cell: slot s's pages follow the slots before it.
fn rule_map_at_cell(slot: i32, cell: vec2<i32>) -> f32 {
    let at = page_texel(cell);
    return textureLoad(rule_maps, at.xy, at.z + slot * i32(terrain.pages.z), 0).r;
}

// Bilinear over the four cells around the point, as the CPU splat blends
// the two map rows first, then the two columns.
fn rule_map_bilinear(slot: i32, cell: vec2<f32>) -> f32 {
    let base = floor(cell);
    let f = cell - base;
    let c = vec2<i32>(base);
    let left = mix(rule_map_at_cell(slot, c), rule_map_at_cell(slot, c + vec2<i32>(0, 1)), f.y);
    let right = mix(rule_map_at_cell(slot, c + vec2<i32>(1, 0)), rule_map_at_cell(slot, c + vec2<i32>(1, 1)), f.y);
    return mix(left, right, f.x);
}

// The map rule's factor (orogen_core::splat::MapRule::factor).
fn map_factor(i: u32, cell: vec2<f32>) -> f32 {
    let rule = terrain.map_rules[i];
    if rule.x < 0.0 {
        return 1.0;
    }
    let v = rule_map_bilinear(i32(rule.x), cell);
    if rule.w > 0.0 {
        let below = clamp((v - rule.y) * rule.w + 1.0, 0.0, 1.0);
        let above = clamp((rule.z - v) * rule.w + 1.0, 0.0, 1.0);
        return min(below, above);
    }
    return select(0.0, 1.0, v >= rule.y && v <= rule.z);
}

fn tile_weights(height: f32, slope: f32, cell: vec2<f32>, count: u32) -> array<f32, 16> {
    var w: array<f32, 16>;
    var sum = 0.0;
    for (var i = 0u; i < count; i++) {
        w[i] = visibility(i, count, height) * slope_factor(i, slope) * map_factor(i, cell);
        sum += w[i];
    }
    if sum <= 1e-6 {
        sum = 0.0;
        for (var i = 0u; i < count; i++) {
            w[i] = visibility(i, count, height);
            sum += w[i];
        }
    }
    if sum <= 1e-6 {
        var nearest = 0u;
        var best = 3.4e38;
        for (var i = 0u; i < count; i++) {
            let d = abs(terrain.bands[i].y - height);
            if d < best {
                best = d;
                nearest = i;
            }
            w[i] = 0.0;
        }
        w[nearest] = 1.0;
        return w;
    }
    for (var i = 0u; i < count; i++) {
        w[i] = w[i] / sum;
    }
    return w;
}

// One tile sampled at texel coordinates `t` with their screen derivatives
// (explicit gradients: the sampling sits in non-uniform control flow).
fn tile_sample(i: u32, t: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>) -> vec3<f32> {
    let repeat = terrain.tiling[i].xy;
    let offset = terrain.tiling[i].zw;
    let uv = t * repeat + offset;
    return textureSampleGrad(tiles, tiles_sampler, uv, i32(i), dx * repeat, dy * repeat).rgb;
}

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    return select(pow((c + vec3<f32>(0.055)) / 1.055, vec3<f32>(2.4)), c / 12.92, c <= vec3<f32>(0.04045));
}

@fragment
fn fragment(in: TerrainVaryings, @builtin(front_facing) is_front: bool) -> @location(0) vec4<f32> {
    let world_from_local = mesh_functions::get_world_from_local(in.instance_index);
    let height_scale = world_from_local[1].y;
    let world = in.world_position.xyz;
    let cell = cell_of(world.xz);

    // Height and slope as the CPU splat takes them: bilinear over the
    // four cells around the point, slope from each cell's gradient.
    let base = floor(cell);
    let f = cell - base;
    let c = vec2<i32>(base);
    let height = height_bilinear(cell);
    let slope = mix(
        mix(slope_degrees(gradient_at_cell(c)), slope_degrees(gradient_at_cell(c + vec2<i32>(1, 0))), f.x),
        mix(slope_degrees(gradient_at_cell(c + vec2<i32>(0, 1))), slope_degrees(gradient_at_cell(c + vec2<i32>(1, 1))), f.x),
        f.y,
    );
    let normal = normal_at(world.xz, height_scale);

    // Texel coordinates of the splat texture's grid, for each projection.
    let texels = terrain.grid.zw;
    let top = (world.xz + terrain.map.xy) * texels;
    let side_x = vec2<f32>((world.z + terrain.map.y) * texels.y, -world.y * texels.x);
    let side_z = vec2<f32>((world.x + terrain.map.x) * texels.x, -world.y * texels.y);
    let top_dx = dpdx(top);
    let top_dy = dpdy(top);
    let sx_dx = dpdx(side_x);
    let sx_dy = dpdy(side_x);
    let sz_dx = dpdx(side_z);
    let sz_dy = dpdy(side_z);

    // Triplanar blend on steep faces (as drawn, exaggeration included):
    // none below 25°, full from 35°.
    let steep = (1.0 - smoothstep(cos(radians(35.0)), cos(radians(25.0)), normal.y)) * terrain.options.z;
    var blend = pow(abs(normal), vec3<f32>(4.0));
    blend = blend / (blend.x + blend.y + blend.z);

    let count = u32(terrain.options.x);
    let w = tile_weights(height, slope, cell, count);
    var colour = vec3<f32>(0.0);
    for (var i = 0u; i < count; i++) {
        if w[i] <= 0.0 {
            continue;
        }
        var texel = tile_sample(i, top, top_dx, top_dy);
        if steep > 0.0 {
            let tri = tile_sample(i, top, top_dx, top_dy) * blend.y
                + tile_sample(i, side_x, sx_dx, sx_dy) * blend.x
                + tile_sample(i, side_z, sz_dx, sz_dy) * blend.z;
            texel = mix(texel, tri, steep);
        }
        colour += w[i] * texel;
    }

    // The flow overlay (orogen_core::maps::flow::tint_rgba): the network's
    // strength, its grid laid corner to corner over the map, tints the
    // sRGB colour as the CPU path tints its texture's bytes.
    if terrain.overlay.w > 0.0 {
        let size = vec2<f32>(textureDimensions(flow));
        let span = max(terrain.grid.xy - vec2<f32>(1.0), vec2<f32>(1.0));
        let uv = (cell * (size - vec2<f32>(1.0)) / span + vec2<f32>(0.5)) / size;
        let strength = textureSampleLevel(flow, flow_sampler, uv, 0.0).r;
        colour = mix(colour, terrain.overlay.rgb, strength * terrain.overlay.w);
    }

    // The tiles are mixed in sRGB, as the CPU splat mixes its bytes.
    colour = srgb_to_linear(colour);
    if terrain.options.y > 0.5 {
        return vec4<f32>(colour, 1.0);
    }

    var pbr_input = pbr_types::pbr_input_new();
    pbr_input.flags = mesh[in.instance_index].flags;
    pbr_input.is_orthographic = view.clip_from_view[3].w == 1.0;
    pbr_input.V = pbr_functions::calculate_view(in.world_position, pbr_input.is_orthographic);
    pbr_input.frag_coord = in.position;
    pbr_input.world_position = in.world_position;
    pbr_input.world_normal = normal;
    pbr_input.N = normal;
    pbr_input.material.base_color = vec4<f32>(colour, 1.0);
    pbr_input.material.perceptual_roughness = 0.92;
    pbr_input.material.reflectance = vec3<f32>(0.2);
    pbr_input.material.flags = pbr_input.material.flags | pbr_types::STANDARD_MATERIAL_FLAGS_FOG_ENABLED_BIT;
    var lit = pbr_functions::apply_pbr_lighting(pbr_input);
    return pbr_functions::main_pass_post_lighting_processing(pbr_input, lit);
}

#endif
