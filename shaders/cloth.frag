#version 330 core
// Two-sided lit cloth: the back face flips the normal and takes its own color.
in vec3 v_position;
in vec3 v_normal;
uniform vec3 u_eye;
uniform vec3 u_light_dir;      // towards the light
uniform vec3 u_front_color;
uniform vec3 u_back_color;
uniform float u_flat;          // 1: draw in one flat color (wireframe overlay)
out vec4 out_color;
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
	vec3 view = normalize(u_eye - v_position);
	vec3 l = normalize(u_light_dir);
	float diffuse = max(dot(n, l), 0.0);
	// A soft fill from below-behind so folds facing away from the key light keep their shape.
	float fill = 0.25 * max(dot(n, normalize(vec3(-0.4, -0.2, -0.8))), 0.0);
	vec3 h = normalize(l + view);
	float sheen = 0.15 * pow(max(dot(n, h), 0.0), 24.0);
	// Fabric looks dull at grazing angles and a little brighter at the rim.
	float rim = 0.12 * pow(1.0 - max(dot(n, view), 0.0), 3.0);
	vec3 color = base * (0.28 + 0.72 * diffuse + fill) + vec3(sheen + rim);
	out_color = vec4(pow(color, vec3(1.0 / 1.1)), 1.0);
}
