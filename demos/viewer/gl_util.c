// SPDX-License-Identifier: MIT
// Shader loading: GLSL files from the shaders directory.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer.h"

static char *read_file(const char *path, long *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *text = NULL;
	if (fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);
		if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) {
			text = malloc((size_t)n + 1);
			if (text && fread(text, 1, (size_t)n, f) == (size_t)n) {
				text[n] = '\0';
				*size = n;
			} else {
				free(text);
				text = NULL;
			}
		}
	}
	fclose(f);
	return text;
}

static GLuint compile(GLenum kind, const char *path, char *error, size_t cap)
{
	long size = 0;
	char *source = read_file(path, &size);
	if (!source) {
		snprintf(error, cap, "cannot read shader %s", path);
		return 0;
	}
	GLuint s = glCreateShader(kind);
	const char *src = source;
	glShaderSource(s, 1, &src, NULL);
	glCompileShader(s);
	free(source);
	GLint ok = 0;
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[1024] = "";
		glGetShaderInfoLog(s, sizeof log, NULL, log);
		snprintf(error, cap, "shader %s does not compile: %s", path, log);
		glDeleteShader(s);
		return 0;
	}
	return s;
}

GLuint gl_program_from_files(const char *dir, const char *name, char *error, size_t cap)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s.vert", dir, name);
	GLuint vs = compile(GL_VERTEX_SHADER, path, error, cap);
	if (!vs)
		return 0;
	snprintf(path, sizeof path, "%s/%s.frag", dir, name);
	GLuint fs = compile(GL_FRAGMENT_SHADER, path, error, cap);
	if (!fs) {
		glDeleteShader(vs);
		return 0;
	}
	GLuint p = glCreateProgram();
	glAttachShader(p, vs);
	glAttachShader(p, fs);
	glLinkProgram(p);
	glDeleteShader(vs);
	glDeleteShader(fs);
	GLint ok = 0;
	glGetProgramiv(p, GL_LINK_STATUS, &ok);
	if (!ok) {
		char log[1024] = "";
		glGetProgramInfoLog(p, sizeof log, NULL, log);
		snprintf(error, cap, "shaders %s/%s.* do not link: %s", dir, name, log);
		glDeleteProgram(p);
		return 0;
	}
	return p;
}
