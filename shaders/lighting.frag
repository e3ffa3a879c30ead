#version 330 core
// Lighting shared by every lit surface: the key light's shadow map, and a sky-and-ground
// hemisphere for the light that arrives from everywhere else.
uniform sampler2DShadow u_shadow_map;
uniform mat4 u_light_view_proj;
uniform float u_shadow_texel;    // one texel of the map in its [0, 1] coordinates; 0: no shadows
uniform float u_shadow_offset;   // m: lookups move this far off the surface, against acne
uniform vec3 u_light_dir;        // towards the light

// The share of the key light that reaches point p of a surface with normal n: 1 lit, 0 in
// shadow. Nine filtered comparisons soften the edge over a few texels.
float key_light_visibility(vec3 p, vec3 n)
{
	if (u_shadow_texel <= 0.0)
		return 1.0;
	vec3 towards_light = dot(n, u_light_dir) >= 0.0 ? n : -n;
	vec4 q = u_light_view_proj * vec4(p + towards_light * u_shadow_offset, 1.0);
	vec3 c = q.xyz / q.w * 0.5 + 0.5;
	if (c.x <= 0.0 || c.x >= 1.0 || c.y <= 0.0 || c.y >= 1.0)
		return 1.0;
	// A receiver beyond the map's far side (the floor under a high cloth) is behind every
	// caster the map holds.
	c.z = min(c.z, 1.0);
	float lit = 0.0;
	for (int i = -1; i <= 1; ++i)
		for (int j = -1; j <= 1; ++j)
			lit += texture(u_shadow_map, vec3(c.xy + vec2(i, j) * 1.5 * u_shadow_texel, c.z));
	return lit / 9.0;
}

// Light from a bluish sky above and a darker, warmer floor below, by how far n faces up.
vec3 hemisphere_light(vec3 n)
{
	const vec3 sky = vec3(0.34, 0.36, 0.40);
	const vec3 ground = vec3(0.20, 0.18, 0.16);
	return mix(ground, sky, 0.5 + 0.5 * n.y);
}
