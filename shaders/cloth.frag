#version 330 core
// Two-sided lit cloth with a woven pattern (gingham, or a twill's diagonal ribs): the back face
// flips the normal and takes its own color; the pattern is fixed to the cloth's starting shape,
// so stretch and motion show in it. Each material preset has its own look (render.c).
in vec3 v_position;
in vec3 v_normal;
in vec3 v_rest;
uniform vec3 u_eye;
uniform vec3 u_light_dir;      // towards the light
uniform vec3 u_front_color;
uniform vec3 u_back_color;
uniform float u_flat;          // 1: draw in one flat color (wireframe overlay)
uniform float u_pattern;       // m: the weave's period; 0: plain
uniform float u_twill;         // 1: diagonal ribs (twill) instead of gingham
uniform vec2 u_sheen;          // the highlight's strength and sharpness (a Blinn-Phong exponent)
out vec4 out_color;

float key_light_visibility(vec3 p, vec3 n);
vec3 hemisphere_light(vec3 n);

// 1 inside the dark half of each period along one axis, 0 outside, with edges a pixel wide.
float band(float c)
{
	float w = fwidth(c);
	float t = abs(fract(c) - 0.5) * 2.0;
	return smoothstep(0.5 - w, 0.5 + w, t);
}

// Where dark bands cross, the weave is darkest (gingham): 0 (plain), 0.5 (one band), 1 (two).
// The bands run along the two axes closest to the starting sheet's own plane.
float weave(vec3 rest)
{
	if (u_pattern <= 0.0)
		return 0.0;
	vec3 c = rest / u_pattern;
	vec3 across = abs(cross(dFdx(rest), dFdy(rest)));
	vec2 uv = across.z >= across.x && across.z >= across.y ? c.xy : across.y >= across.x ? c.xz : c.yz;
	if (u_twill > 0.5)
		return band(uv.x + uv.y);
	return 0.5 * (band(uv.x) + band(uv.y));
}

void main()
{
	if (u_flat > 0.5) {
		out_color = vec4(u_front_color, 1.0);
		return;
	}
	vec3 n = normalize(v_normal);
	vec3 base = u_front_color;
	if (!gl_FrontFacing) {
		n = -n;
		base = u_back_color;
	}
	base *= 1.0 - 0.15 * weave(v_rest);
	vec3 view = normalize(u_eye - v_position);
	vec3 l = normalize(u_light_dir);
	float lit = key_light_visibility(v_position, n);
	float diffuse = max(dot(n, l), 0.0) * (0.25 + 0.75 * lit);
	// A soft fill from below-behind so folds facing away from the key light keep their shape.
	float fill = 0.2 * max(dot(n, normalize(vec3(-0.4, -0.2, -0.8))), 0.0);
	vec3 h = normalize(l + view);
	float sheen = u_sheen.x * lit * pow(max(dot(n, h), 0.0), u_sheen.y);
	// Fabric looks dull at grazing angles and a little brighter at the rim.
	float rim = 0.12 * pow(1.0 - max(dot(n, view), 0.0), 3.0);
	vec3 color = base * (hemisphere_light(n) + 0.72 * diffuse + fill) + vec3(sheen + rim);
	out_color = vec4(pow(color, vec3(1.0 / 1.1)), 1.0);
}
