#version 330 core
// Plane with anti-aliased grid lines every metre (and faint ones every 10 cm), fading out,
// darkened where the key light's shadows fall.
in vec2 v_local;
in vec3 v_world;
in vec3 v_normal;
uniform vec3 u_eye;
uniform vec3 u_color;
uniform float u_extent;
out vec4 out_color;

float key_light_visibility(vec3 p, vec3 n);

float grid_line(vec2 p, float spacing, float width)
{
	vec2 q = p / spacing;
	vec2 d = abs(fract(q - 0.5) - 0.5) / fwidth(q);
	return 1.0 - min(min(d.x, d.y) / width, 1.0);
}
void main()
{
	float major = grid_line(v_local, 1.0, 1.2);
	float minor = grid_line(v_local, 0.1, 0.8) * 0.35;
	float fade = 1.0 - smoothstep(0.4 * u_extent, u_extent, length(v_local));
	float lit = key_light_visibility(v_world, normalize(v_normal));
	vec3 color = (u_color * 0.55 + vec3(0.22) * max(major, minor)) * (0.45 + 0.55 * lit);
	out_color = vec4(color, 0.92 * fade);
}
