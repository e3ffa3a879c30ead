#version 330 core
// Colliders and particles: lit by the key light (with its shadows) and the hemisphere.
in vec3 v_position;
in vec3 v_normal;
uniform vec3 u_eye;
uniform vec3 u_light_dir;
uniform vec3 u_color;
out vec4 out_color;

float key_light_visibility(vec3 p, vec3 n);
vec3 hemisphere_light(vec3 n);

void main()
{
	vec3 n = normalize(v_normal);
	vec3 l = normalize(u_light_dir);
	vec3 view = normalize(u_eye - v_position);
	float lit = key_light_visibility(v_position, n);
	float diffuse = max(dot(n, l), 0.0) * lit;
	float spec = 0.35 * lit * pow(max(dot(n, normalize(l + view)), 0.0), 48.0);
	// A soft fill from below-behind, as on the cloth, so the side away from the key light has shape.
	float fill = 0.2 * max(dot(n, normalize(vec3(-0.4, -0.2, -0.8))), 0.0);
	out_color = vec4(u_color * (hemisphere_light(n) + 0.75 * diffuse + fill) + vec3(spec), 1.0);
}
