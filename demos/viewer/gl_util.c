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

// Links the vertex shader `vertex` with the fragment shaders `fragments` (a main one and the
// shared functions it declares, e.g. the lighting every lit surface uses).
GLuint gl_program_link(const char *dir, const char *vertex, const char *const *fragments, int fragment_count,
		       char *error, size_t cap)
{
	enum { MAX_STAGES = 4 };
	GLuint shaders[MAX_STAGES];
	int count = 0;
	char path[1024];
	snprintf(path, sizeof path, "%s/%s.vert", dir, vertex);
	shaders[count] = compile(GL_VERTEX_SHADER, path, error, cap);
	bool ok = shaders[count++] != 0;
	for (int k = 0; ok && k < fragment_count && count < MAX_STAGES; ++k) {
		snprintf(path, sizeof path, "%s/%s.frag", dir, fragments[k]);
		shaders[count] = compile(GL_FRAGMENT_SHADER, path, error, cap);
		ok = shaders[count++] != 0;
	}
	GLuint p = 0;
	if (ok) {
		p = glCreateProgram();
		for (int k = 0; k < count; ++k)
			glAttachShader(p, shaders[k]);
		glLinkProgram(p);
	}
	for (int k = 0; k < count; ++k)
		if (shaders[k])
			glDeleteShader(shaders[k]);
	if (!p)
		return 0;
	GLint linked = 0;
	glGetProgramiv(p, GL_LINK_STATUS, &linked);
	if (!linked) {
		char log[1024] = "";
		glGetProgramInfoLog(p, sizeof log, NULL, log);
		snprintf(error, cap, "shaders %s/%s.* do not link: %s", dir, vertex, log);
		glDeleteProgram(p);
		return 0;
	}
	return p;
}

GLuint gl_program_from_files(const char *dir, const char *name, char *error, size_t cap)
{
	const char *fragments[1] = {name};
	return gl_program_link(dir, name, fragments, 1, error, cap);
}
