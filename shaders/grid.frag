#version 330 core
// Plane with anti-aliased grid lines every metre (and faint ones every 10 cm), fading out.
in vec2 v_local;
in vec3 v_world;
uniform vec3 u_eye;
uniform vec3 u_color;
uniform float u_extent;
out vec4 out_color;
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
	vec3 color = u_color * 0.55 + vec3(0.22) * max(major, minor);
	out_color = vec4(color, 0.92 * fade);
}
