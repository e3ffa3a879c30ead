#version 330 core
in vec3 v_position;
in vec3 v_normal;
uniform vec3 u_eye;
uniform vec3 u_light_dir;
uniform vec3 u_color;
out vec4 out_color;
void main()
{
	vec3 n = normalize(v_normal);
	vec3 l = normalize(u_light_dir);
	vec3 view = normalize(u_eye - v_position);
	float diffuse = max(dot(n, l), 0.0);
	float spec = 0.35 * pow(max(dot(n, normalize(l + view)), 0.0), 48.0);
	out_color = vec4(u_color * (0.25 + 0.75 * diffuse) + vec3(spec), 1.0);
}
