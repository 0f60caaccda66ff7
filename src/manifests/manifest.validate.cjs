/**
 * The manifest validator, generated from manifest.schema.json by scripts/generate-manifest-code.ts; do not edit.
 * To change the manifest, edit the schema and run: node scripts/generate-manifest-code.ts
 */
/* eslint-disable */
'use strict';
module.exports = validate10;
module.exports.default = validate10;
const schema11 = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://ward.invalid/schemas/manifest.schema.json',
  title: 'Manifest',
  description: "A Ward module's manifest.json: who the module is, what it needs and what it grants.",
  type: 'object',
  additionalProperties: false,
  required: ['name', 'version'],
  properties: {
    $schema: { description: 'Path or URL of this schema, for editors.', type: 'string' },
    name: { $ref: '#/definitions/moduleName' },
    version: { $ref: '#/definitions/version' },
    summary: { description: 'One line saying what the module is for.', type: 'string' },
    depends: {
      description: 'Modules that must be installed before this one.',
      type: 'array',
      items: { $ref: '#/definitions/moduleName' },
      uniqueItems: true,
      default: [],
    },
    removable: {
      description: 'Whether uninstall is allowed without --force; false for official modules.',
      type: 'boolean',
      default: true,
    },
    permissions: {
      description: 'Permission names this module defines, namespaced by the module name.',
      type: 'array',
      items: { $ref: '#/definitions/permission' },
      uniqueItems: true,
    },
    role_permissions: {
      description: 'Permissions granted to each role; "*" grants all.',
      type: 'object',
      propertyNames: { $ref: '#/definitions/roleName' },
      additionalProperties: { type: 'array', items: { $ref: '#/definitions/grant' }, uniqueItems: true },
    },
    navigation: {
      description: "Entries the frontend shows to users holding the entry's permission.",
      type: 'array',
      items: { $ref: '#/definitions/navigationEntry' },
    },
    frontend: { $ref: '#/definitions/layerPath' },
    api: { $ref: '#/definitions/apiPath' },
  },
  definitions: {
    moduleName: {
      title: 'ModuleName',
      description:
        'Lowercase letters, digits and _, starting with a letter, at most 63 characters; the only form used in SQL and paths.',
      type: 'string',
      pattern: '^[a-z][a-z0-9_]{0,62}$',
    },
    version: {
      title: 'Version',
      description:
        "Semantic version (semver 2.0) of the module's code; an upgrade is due when it differs from the database.",
      type: 'string',
      maxLength: 256,
      pattern:
        '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$',
    },
    roleName: {
      title: 'RoleName',
      type: 'string',
      pattern: '^[a-z][a-z0-9_]{0,62}$',
      description: 'Lowercase letters, digits and _, starting with a letter, at most 63 characters.',
    },
    permission: {
      title: 'Permission',
      description:
        '`<module>.<resource>.<action>` or `<module>.<action>`: two or more lowercase dot-separated segments.',
      type: 'string',
      pattern: '^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$',
    },
    grant: {
      title: 'Grant',
      description: 'A permission name, or "*" for every permission.',
      type: 'string',
      pattern: '^(?:\\*|[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+)$',
    },
    navigationEntry: {
      title: 'NavigationEntry',
      type: 'object',
      additionalProperties: false,
      required: ['label', 'path', 'permission'],
      properties: {
        label: { type: 'string', minLength: 1 },
        path: { $ref: '#/definitions/routePath' },
        permission: { $ref: '#/definitions/permission' },
      },
    },
    layerPath: {
      title: 'LayerPath',
      description:
        "The module's frontend layer: a path relative to the module directory, without `..` segments.",
      type: 'string',
      minLength: 1,
      pattern: '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*$',
    },
    apiPath: {
      title: 'ApiPath',
      description:
        "The module's public API, which other modules reach through sdk.modules.get: a .ts or .js file relative to the module directory, without `..` segments.",
      type: 'string',
      pattern: '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*\\.(?:ts|js)$',
    },
    routePath: {
      title: 'RoutePath',
      description:
        "Frontend route on Ward's own origin: starting with / and not with // or /\\ (which a browser reads as another host).",
      type: 'string',
      pattern: '^/(?![/\\\\])',
    },
  },
};
const schema12 = {
  title: 'ModuleName',
  description:
    'Lowercase letters, digits and _, starting with a letter, at most 63 characters; the only form used in SQL and paths.',
  type: 'string',
  pattern: '^[a-z][a-z0-9_]{0,62}$',
};
const schema13 = {
  title: 'Version',
  description:
    "Semantic version (semver 2.0) of the module's code; an upgrade is due when it differs from the database.",
  type: 'string',
  maxLength: 256,
  pattern:
    '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$',
};
const schema15 = {
  title: 'Permission',
  description:
    '`<module>.<resource>.<action>` or `<module>.<action>`: two or more lowercase dot-separated segments.',
  type: 'string',
  pattern: '^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$',
};
const schema16 = {
  title: 'RoleName',
  type: 'string',
  pattern: '^[a-z][a-z0-9_]{0,62}$',
  description: 'Lowercase letters, digits and _, starting with a letter, at most 63 characters.',
};
const schema17 = {
  title: 'Grant',
  description: 'A permission name, or "*" for every permission.',
  type: 'string',
  pattern: '^(?:\\*|[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+)$',
};
const schema21 = {
  title: 'LayerPath',
  description: "The module's frontend layer: a path relative to the module directory, without `..` segments.",
  type: 'string',
  minLength: 1,
  pattern: '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*$',
};
const schema22 = {
  title: 'ApiPath',
  description:
    "The module's public API, which other modules reach through sdk.modules.get: a .ts or .js file relative to the module directory, without `..` segments.",
  type: 'string',
  pattern: '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*\\.(?:ts|js)$',
};
const func2 = Object.prototype.hasOwnProperty;
const func3 = require('ajv/dist/runtime/ucs2length').default;
const func0 = require('ajv/dist/runtime/equal').default;
const pattern0 = new RegExp('^[a-z][a-z0-9_]{0,62}$', 'u');
const pattern1 = new RegExp(
  '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$',
  'u',
);
const pattern3 = new RegExp('^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$', 'u');
const pattern5 = new RegExp('^(?:\\*|[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+)$', 'u');
const pattern8 = new RegExp('^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*$', 'u');
const pattern9 = new RegExp(
  '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*\\.(?:ts|js)$',
  'u',
);
const schema18 = {
  title: 'NavigationEntry',
  type: 'object',
  additionalProperties: false,
  required: ['label', 'path', 'permission'],
  properties: {
    label: { type: 'string', minLength: 1 },
    path: { $ref: '#/definitions/routePath' },
    permission: { $ref: '#/definitions/permission' },
  },
};
const schema19 = {
  title: 'RoutePath',
  description:
    "Frontend route on Ward's own origin: starting with / and not with // or /\\ (which a browser reads as another host).",
  type: 'string',
  pattern: '^/(?![/\\\\])',
};
const pattern6 = new RegExp('^/(?![/\\\\])', 'u');

function validate11(data, { instancePath = '', parentData, parentDataProperty, rootData = data } = {}) {
  let vErrors = null;
  let errors = 0;
  if (data && typeof data == 'object' && !Array.isArray(data)) {
    if (data.label === undefined) {
      const err0 = {
        instancePath,
        schemaPath: '#/required',
        keyword: 'required',
        params: { missingProperty: 'label' },
        message: "must have required property '" + 'label' + "'",
        schema: schema18.required,
        parentSchema: schema18,
        data,
      };
      if (vErrors === null) {
        vErrors = [err0];
      } else {
        vErrors.push(err0);
      }
      errors++;
    }
    if (data.path === undefined) {
      const err1 = {
        instancePath,
        schemaPath: '#/required',
        keyword: 'required',
        params: { missingProperty: 'path' },
        message: "must have required property '" + 'path' + "'",
        schema: schema18.required,
        parentSchema: schema18,
        data,
      };
      if (vErrors === null) {
        vErrors = [err1];
      } else {
        vErrors.push(err1);
      }
      errors++;
    }
    if (data.permission === undefined) {
      const err2 = {
        instancePath,
        schemaPath: '#/required',
        keyword: 'required',
        params: { missingProperty: 'permission' },
        message: "must have required property '" + 'permission' + "'",
        schema: schema18.required,
        parentSchema: schema18,
        data,
      };
      if (vErrors === null) {
        vErrors = [err2];
      } else {
        vErrors.push(err2);
      }
      errors++;
    }
    for (const key0 in data) {
      if (!(key0 === 'label' || key0 === 'path' || key0 === 'permission')) {
        const err3 = {
          instancePath,
          schemaPath: '#/additionalProperties',
          keyword: 'additionalProperties',
          params: { additionalProperty: key0 },
          message: 'must NOT have additional properties',
          schema: false,
          parentSchema: schema18,
          data,
        };
        if (vErrors === null) {
          vErrors = [err3];
        } else {
          vErrors.push(err3);
        }
        errors++;
      }
    }
    if (data.label !== undefined) {
      let data0 = data.label;
      if (typeof data0 === 'string') {
        if (func3(data0) < 1) {
          const err4 = {
            instancePath: instancePath + '/label',
            schemaPath: '#/properties/label/minLength',
            keyword: 'minLength',
            params: { limit: 1 },
            message: 'must NOT have fewer than 1 characters',
            schema: 1,
            parentSchema: schema18.properties.label,
            data: data0,
          };
          if (vErrors === null) {
            vErrors = [err4];
          } else {
            vErrors.push(err4);
          }
          errors++;
        }
      } else {
        const err5 = {
          instancePath: instancePath + '/label',
          schemaPath: '#/properties/label/type',
          keyword: 'type',
          params: { type: 'string' },
          message: 'must be string',
          schema: schema18.properties.label.type,
          parentSchema: schema18.properties.label,
          data: data0,
        };
        if (vErrors === null) {
          vErrors = [err5];
        } else {
          vErrors.push(err5);
        }
        errors++;
      }
    }
    if (data.path !== undefined) {
      let data1 = data.path;
      if (typeof data1 === 'string') {
        if (!pattern6.test(data1)) {
          const err6 = {
            instancePath: instancePath + '/path',
            schemaPath: '#/definitions/routePath/pattern',
            keyword: 'pattern',
            params: { pattern: '^/(?![/\\\\])' },
            message: 'must match pattern "' + '^/(?![/\\\\])' + '"',
            schema: '^/(?![/\\\\])',
            parentSchema: schema19,
            data: data1,
          };
          if (vErrors === null) {
            vErrors = [err6];
          } else {
            vErrors.push(err6);
          }
          errors++;
        }
      } else {
        const err7 = {
          instancePath: instancePath + '/path',
          schemaPath: '#/definitions/routePath/type',
          keyword: 'type',
          params: { type: 'string' },
          message: 'must be string',
          schema: schema19.type,
          parentSchema: schema19,
          data: data1,
        };
        if (vErrors === null) {
          vErrors = [err7];
        } else {
          vErrors.push(err7);
        }
        errors++;
      }
    }
    if (data.permission !== undefined) {
      let data2 = data.permission;
      if (typeof data2 === 'string') {
        if (!pattern3.test(data2)) {
          const err8 = {
            instancePath: instancePath + '/permission',
            schemaPath: '#/definitions/permission/pattern',
            keyword: 'pattern',
            params: { pattern: '^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$' },
            message: 'must match pattern "' + '^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$' + '"',
            schema: '^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$',
            parentSchema: schema15,
            data: data2,
          };
          if (vErrors === null) {
            vErrors = [err8];
          } else {
            vErrors.push(err8);
          }
          errors++;
        }
      } else {
        const err9 = {
          instancePath: instancePath + '/permission',
          schemaPath: '#/definitions/permission/type',
          keyword: 'type',
          params: { type: 'string' },
          message: 'must be string',
          schema: schema15.type,
          parentSchema: schema15,
          data: data2,
        };
        if (vErrors === null) {
          vErrors = [err9];
        } else {
          vErrors.push(err9);
        }
        errors++;
      }
    }
  } else {
    const err10 = {
      instancePath,
      schemaPath: '#/type',
      keyword: 'type',
      params: { type: 'object' },
      message: 'must be object',
      schema: schema18.type,
      parentSchema: schema18,
      data,
    };
    if (vErrors === null) {
      vErrors = [err10];
    } else {
      vErrors.push(err10);
    }
    errors++;
  }
  validate11.errors = vErrors;
  return errors === 0;
}

function validate10(data, { instancePath = '', parentData, parentDataProperty, rootData = data } = {}) {
  /*# sourceURL="https://ward.invalid/schemas/manifest.schema.json" */ let vErrors = null;
  let errors = 0;
  if (data && typeof data == 'object' && !Array.isArray(data)) {
    if (data.depends === undefined) {
      data.depends = [];
    }
    if (data.removable === undefined) {
      data.removable = true;
    }
    if (data.name === undefined) {
      const err0 = {
        instancePath,
        schemaPath: '#/required',
        keyword: 'required',
        params: { missingProperty: 'name' },
        message: "must have required property '" + 'name' + "'",
        schema: schema11.required,
        parentSchema: schema11,
        data,
      };
      if (vErrors === null) {
        vErrors = [err0];
      } else {
        vErrors.push(err0);
      }
      errors++;
    }
    if (data.version === undefined) {
      const err1 = {
        instancePath,
        schemaPath: '#/required',
        keyword: 'required',
        params: { missingProperty: 'version' },
        message: "must have required property '" + 'version' + "'",
        schema: schema11.required,
        parentSchema: schema11,
        data,
      };
      if (vErrors === null) {
        vErrors = [err1];
      } else {
        vErrors.push(err1);
      }
      errors++;
    }
    for (const key0 in data) {
      if (!func2.call(schema11.properties, key0)) {
        const err2 = {
          instancePath,
          schemaPath: '#/additionalProperties',
          keyword: 'additionalProperties',
          params: { additionalProperty: key0 },
          message: 'must NOT have additional properties',
          schema: false,
          parentSchema: schema11,
          data,
        };
        if (vErrors === null) {
          vErrors = [err2];
        } else {
          vErrors.push(err2);
        }
        errors++;
      }
    }
    if (data.$schema !== undefined) {
      let data0 = data.$schema;
      if (typeof data0 !== 'string') {
        const err3 = {
          instancePath: instancePath + '/$schema',
          schemaPath: '#/properties/%24schema/type',
          keyword: 'type',
          params: { type: 'string' },
          message: 'must be string',
          schema: schema11.properties.$schema.type,
          parentSchema: schema11.properties.$schema,
          data: data0,
        };
        if (vErrors === null) {
          vErrors = [err3];
        } else {
          vErrors.push(err3);
        }
        errors++;
      }
    }
    if (data.name !== undefined) {
      let data1 = data.name;
      if (typeof data1 === 'string') {
        if (!pattern0.test(data1)) {
          const err4 = {
            instancePath: instancePath + '/name',
            schemaPath: '#/definitions/moduleName/pattern',
            keyword: 'pattern',
            params: { pattern: '^[a-z][a-z0-9_]{0,62}$' },
            message: 'must match pattern "' + '^[a-z][a-z0-9_]{0,62}$' + '"',
            schema: '^[a-z][a-z0-9_]{0,62}$',
            parentSchema: schema12,
            data: data1,
          };
          if (vErrors === null) {
            vErrors = [err4];
          } else {
            vErrors.push(err4);
          }
          errors++;
        }
      } else {
        const err5 = {
          instancePath: instancePath + '/name',
          schemaPath: '#/definitions/moduleName/type',
          keyword: 'type',
          params: { type: 'string' },
          message: 'must be string',
          schema: schema12.type,
          parentSchema: schema12,
          data: data1,
        };
        if (vErrors === null) {
          vErrors = [err5];
        } else {
          vErrors.push(err5);
        }
        errors++;
      }
    }
    if (data.version !== undefined) {
      let data2 = data.version;
      if (typeof data2 === 'string') {
        if (func3(data2) > 256) {
          const err6 = {
            instancePath: instancePath + '/version',
            schemaPath: '#/definitions/version/maxLength',
            keyword: 'maxLength',
            params: { limit: 256 },
            message: 'must NOT have more than 256 characters',
            schema: 256,
            parentSchema: schema13,
            data: data2,
          };
          if (vErrors === null) {
            vErrors = [err6];
          } else {
            vErrors.push(err6);
          }
          errors++;
        }
        if (!pattern1.test(data2)) {
          const err7 = {
            instancePath: instancePath + '/version',
            schemaPath: '#/definitions/version/pattern',
            keyword: 'pattern',
            params: {
              pattern:
                '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$',
            },
            message:
              'must match pattern "' +
              '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$' +
              '"',
            schema:
              '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$',
            parentSchema: schema13,
            data: data2,
          };
          if (vErrors === null) {
            vErrors = [err7];
          } else {
            vErrors.push(err7);
          }
          errors++;
        }
      } else {
        const err8 = {
          instancePath: instancePath + '/version',
          schemaPath: '#/definitions/version/type',
          keyword: 'type',
          params: { type: 'string' },
          message: 'must be string',
          schema: schema13.type,
          parentSchema: schema13,
          data: data2,
        };
        if (vErrors === null) {
          vErrors = [err8];
        } else {
          vErrors.push(err8);
        }
        errors++;
      }
    }
    if (data.summary !== undefined) {
      let data3 = data.summary;
      if (typeof data3 !== 'string') {
        const err9 = {
          instancePath: instancePath + '/summary',
          schemaPath: '#/properties/summary/type',
          keyword: 'type',
          params: { type: 'string' },
          message: 'must be string',
          schema: schema11.properties.summary.type,
          parentSchema: schema11.properties.summary,
          data: data3,
        };
        if (vErrors === null) {
          vErrors = [err9];
        } else {
          vErrors.push(err9);
        }
        errors++;
      }
    }
    let data4 = data.depends;
    if (Array.isArray(data4)) {
      const len0 = data4.length;
      for (let i0 = 0; i0 < len0; i0++) {
        let data5 = data4[i0];
        if (typeof data5 === 'string') {
          if (!pattern0.test(data5)) {
            const err10 = {
              instancePath: instancePath + '/depends/' + i0,
              schemaPath: '#/definitions/moduleName/pattern',
              keyword: 'pattern',
              params: { pattern: '^[a-z][a-z0-9_]{0,62}$' },
              message: 'must match pattern "' + '^[a-z][a-z0-9_]{0,62}$' + '"',
              schema: '^[a-z][a-z0-9_]{0,62}$',
              parentSchema: schema12,
              data: data5,
            };
            if (vErrors === null) {
              vErrors = [err10];
            } else {
              vErrors.push(err10);
            }
            errors++;
          }
        } else {
          const err11 = {
            instancePath: instancePath + '/depends/' + i0,
            schemaPath: '#/definitions/moduleName/type',
            keyword: 'type',
            params: { type: 'string' },
            message: 'must be string',
            schema: schema12.type,
            parentSchema: schema12,
            data: data5,
          };
          if (vErrors === null) {
            vErrors = [err11];
          } else {
            vErrors.push(err11);
          }
          errors++;
        }
      }
      let i1 = data4.length;
      let j0;
      if (i1 > 1) {
        outer0: for (; i1--;) {
          for (j0 = i1; j0--;) {
            if (func0(data4[i1], data4[j0])) {
              const err12 = {
                instancePath: instancePath + '/depends',
                schemaPath: '#/properties/depends/uniqueItems',
                keyword: 'uniqueItems',
                params: { i: i1, j: j0 },
                message: 'must NOT have duplicate items (items ## ' + j0 + ' and ' + i1 + ' are identical)',
                schema: true,
                parentSchema: schema11.properties.depends,
                data: data4,
              };
              if (vErrors === null) {
                vErrors = [err12];
              } else {
                vErrors.push(err12);
              }
              errors++;
              break outer0;
            }
          }
        }
      }
    } else {
      const err13 = {
        instancePath: instancePath + '/depends',
        schemaPath: '#/properties/depends/type',
        keyword: 'type',
        params: { type: 'array' },
        message: 'must be array',
        schema: schema11.properties.depends.type,
        parentSchema: schema11.properties.depends,
        data: data4,
      };
      if (vErrors === null) {
        vErrors = [err13];
      } else {
        vErrors.push(err13);
      }
      errors++;
    }
    let data6 = data.removable;
    if (typeof data6 !== 'boolean') {
      const err14 = {
        instancePath: instancePath + '/removable',
        schemaPath: '#/properties/removable/type',
        keyword: 'type',
        params: { type: 'boolean' },
        message: 'must be boolean',
        schema: schema11.properties.removable.type,
        parentSchema: schema11.properties.removable,
        data: data6,
      };
      if (vErrors === null) {
        vErrors = [err14];
      } else {
        vErrors.push(err14);
      }
      errors++;
    }
    if (data.permissions !== undefined) {
      let data7 = data.permissions;
      if (Array.isArray(data7)) {
        const len1 = data7.length;
        for (let i2 = 0; i2 < len1; i2++) {
          let data8 = data7[i2];
          if (typeof data8 === 'string') {
            if (!pattern3.test(data8)) {
              const err15 = {
                instancePath: instancePath + '/permissions/' + i2,
                schemaPath: '#/definitions/permission/pattern',
                keyword: 'pattern',
                params: { pattern: '^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$' },
                message: 'must match pattern "' + '^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$' + '"',
                schema: '^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$',
                parentSchema: schema15,
                data: data8,
              };
              if (vErrors === null) {
                vErrors = [err15];
              } else {
                vErrors.push(err15);
              }
              errors++;
            }
          } else {
            const err16 = {
              instancePath: instancePath + '/permissions/' + i2,
              schemaPath: '#/definitions/permission/type',
              keyword: 'type',
              params: { type: 'string' },
              message: 'must be string',
              schema: schema15.type,
              parentSchema: schema15,
              data: data8,
            };
            if (vErrors === null) {
              vErrors = [err16];
            } else {
              vErrors.push(err16);
            }
            errors++;
          }
        }
        let i3 = data7.length;
        let j1;
        if (i3 > 1) {
          outer1: for (; i3--;) {
            for (j1 = i3; j1--;) {
              if (func0(data7[i3], data7[j1])) {
                const err17 = {
                  instancePath: instancePath + '/permissions',
                  schemaPath: '#/properties/permissions/uniqueItems',
                  keyword: 'uniqueItems',
                  params: { i: i3, j: j1 },
                  message: 'must NOT have duplicate items (items ## ' + j1 + ' and ' + i3 + ' are identical)',
                  schema: true,
                  parentSchema: schema11.properties.permissions,
                  data: data7,
                };
                if (vErrors === null) {
                  vErrors = [err17];
                } else {
                  vErrors.push(err17);
                }
                errors++;
                break outer1;
              }
            }
          }
        }
      } else {
        const err18 = {
          instancePath: instancePath + '/permissions',
          schemaPath: '#/properties/permissions/type',
          keyword: 'type',
          params: { type: 'array' },
          message: 'must be array',
          schema: schema11.properties.permissions.type,
          parentSchema: schema11.properties.permissions,
          data: data7,
        };
        if (vErrors === null) {
          vErrors = [err18];
        } else {
          vErrors.push(err18);
        }
        errors++;
      }
    }
    if (data.role_permissions !== undefined) {
      let data9 = data.role_permissions;
      if (data9 && typeof data9 == 'object' && !Array.isArray(data9)) {
        for (const key1 in data9) {
          const _errs26 = errors;
          if (typeof key1 === 'string') {
            if (!pattern0.test(key1)) {
              const err19 = {
                instancePath: instancePath + '/role_permissions',
                schemaPath: '#/definitions/roleName/pattern',
                keyword: 'pattern',
                params: { pattern: '^[a-z][a-z0-9_]{0,62}$' },
                message: 'must match pattern "' + '^[a-z][a-z0-9_]{0,62}$' + '"',
                schema: '^[a-z][a-z0-9_]{0,62}$',
                parentSchema: schema16,
                data: key1,
                propertyName: key1,
              };
              if (vErrors === null) {
                vErrors = [err19];
              } else {
                vErrors.push(err19);
              }
              errors++;
            }
          } else {
            const err20 = {
              instancePath: instancePath + '/role_permissions',
              schemaPath: '#/definitions/roleName/type',
              keyword: 'type',
              params: { type: 'string' },
              message: 'must be string',
              schema: schema16.type,
              parentSchema: schema16,
              data: key1,
              propertyName: key1,
            };
            if (vErrors === null) {
              vErrors = [err20];
            } else {
              vErrors.push(err20);
            }
            errors++;
          }
          var valid11 = _errs26 === errors;
          if (!valid11) {
            const err21 = {
              instancePath: instancePath + '/role_permissions',
              schemaPath: '#/properties/role_permissions/propertyNames',
              keyword: 'propertyNames',
              params: { propertyName: key1 },
              message: 'property name must be valid',
              schema: schema11.properties.role_permissions.propertyNames,
              parentSchema: schema11.properties.role_permissions,
              data: data9,
            };
            if (vErrors === null) {
              vErrors = [err21];
            } else {
              vErrors.push(err21);
            }
            errors++;
          }
        }
        for (const key2 in data9) {
          let data10 = data9[key2];
          if (Array.isArray(data10)) {
            const len2 = data10.length;
            for (let i4 = 0; i4 < len2; i4++) {
              let data11 = data10[i4];
              if (typeof data11 === 'string') {
                if (!pattern5.test(data11)) {
                  const err22 = {
                    instancePath:
                      instancePath +
                      '/role_permissions/' +
                      key2.replace(/~/g, '~0').replace(/\//g, '~1') +
                      '/' +
                      i4,
                    schemaPath: '#/definitions/grant/pattern',
                    keyword: 'pattern',
                    params: { pattern: '^(?:\\*|[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+)$' },
                    message:
                      'must match pattern "' + '^(?:\\*|[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+)$' + '"',
                    schema: '^(?:\\*|[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+)$',
                    parentSchema: schema17,
                    data: data11,
                  };
                  if (vErrors === null) {
                    vErrors = [err22];
                  } else {
                    vErrors.push(err22);
                  }
                  errors++;
                }
              } else {
                const err23 = {
                  instancePath:
                    instancePath +
                    '/role_permissions/' +
                    key2.replace(/~/g, '~0').replace(/\//g, '~1') +
                    '/' +
                    i4,
                  schemaPath: '#/definitions/grant/type',
                  keyword: 'type',
                  params: { type: 'string' },
                  message: 'must be string',
                  schema: schema17.type,
                  parentSchema: schema17,
                  data: data11,
                };
                if (vErrors === null) {
                  vErrors = [err23];
                } else {
                  vErrors.push(err23);
                }
                errors++;
              }
            }
            let i5 = data10.length;
            let j2;
            if (i5 > 1) {
              outer2: for (; i5--;) {
                for (j2 = i5; j2--;) {
                  if (func0(data10[i5], data10[j2])) {
                    const err24 = {
                      instancePath:
                        instancePath + '/role_permissions/' + key2.replace(/~/g, '~0').replace(/\//g, '~1'),
                      schemaPath: '#/properties/role_permissions/additionalProperties/uniqueItems',
                      keyword: 'uniqueItems',
                      params: { i: i5, j: j2 },
                      message:
                        'must NOT have duplicate items (items ## ' + j2 + ' and ' + i5 + ' are identical)',
                      schema: true,
                      parentSchema: schema11.properties.role_permissions.additionalProperties,
                      data: data10,
                    };
                    if (vErrors === null) {
                      vErrors = [err24];
                    } else {
                      vErrors.push(err24);
                    }
                    errors++;
                    break outer2;
                  }
                }
              }
            }
          } else {
            const err25 = {
              instancePath:
                instancePath + '/role_permissions/' + key2.replace(/~/g, '~0').replace(/\//g, '~1'),
              schemaPath: '#/properties/role_permissions/additionalProperties/type',
              keyword: 'type',
              params: { type: 'array' },
              message: 'must be array',
              schema: schema11.properties.role_permissions.additionalProperties.type,
              parentSchema: schema11.properties.role_permissions.additionalProperties,
              data: data10,
            };
            if (vErrors === null) {
              vErrors = [err25];
            } else {
              vErrors.push(err25);
            }
            errors++;
          }
        }
      } else {
        const err26 = {
          instancePath: instancePath + '/role_permissions',
          schemaPath: '#/properties/role_permissions/type',
          keyword: 'type',
          params: { type: 'object' },
          message: 'must be object',
          schema: schema11.properties.role_permissions.type,
          parentSchema: schema11.properties.role_permissions,
          data: data9,
        };
        if (vErrors === null) {
          vErrors = [err26];
        } else {
          vErrors.push(err26);
        }
        errors++;
      }
    }
    if (data.navigation !== undefined) {
      let data12 = data.navigation;
      if (Array.isArray(data12)) {
        const len3 = data12.length;
        for (let i6 = 0; i6 < len3; i6++) {
          if (
            !validate11(data12[i6], {
              instancePath: instancePath + '/navigation/' + i6,
              parentData: data12,
              parentDataProperty: i6,
              rootData,
            })
          ) {
            vErrors = vErrors === null ? validate11.errors : vErrors.concat(validate11.errors);
            errors = vErrors.length;
          }
        }
      } else {
        const err27 = {
          instancePath: instancePath + '/navigation',
          schemaPath: '#/properties/navigation/type',
          keyword: 'type',
          params: { type: 'array' },
          message: 'must be array',
          schema: schema11.properties.navigation.type,
          parentSchema: schema11.properties.navigation,
          data: data12,
        };
        if (vErrors === null) {
          vErrors = [err27];
        } else {
          vErrors.push(err27);
        }
        errors++;
      }
    }
    if (data.frontend !== undefined) {
      let data14 = data.frontend;
      if (typeof data14 === 'string') {
        if (func3(data14) < 1) {
          const err28 = {
            instancePath: instancePath + '/frontend',
            schemaPath: '#/definitions/layerPath/minLength',
            keyword: 'minLength',
            params: { limit: 1 },
            message: 'must NOT have fewer than 1 characters',
            schema: 1,
            parentSchema: schema21,
            data: data14,
          };
          if (vErrors === null) {
            vErrors = [err28];
          } else {
            vErrors.push(err28);
          }
          errors++;
        }
        if (!pattern8.test(data14)) {
          const err29 = {
            instancePath: instancePath + '/frontend',
            schemaPath: '#/definitions/layerPath/pattern',
            keyword: 'pattern',
            params: { pattern: '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*$' },
            message:
              'must match pattern "' +
              '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*$' +
              '"',
            schema: '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*$',
            parentSchema: schema21,
            data: data14,
          };
          if (vErrors === null) {
            vErrors = [err29];
          } else {
            vErrors.push(err29);
          }
          errors++;
        }
      } else {
        const err30 = {
          instancePath: instancePath + '/frontend',
          schemaPath: '#/definitions/layerPath/type',
          keyword: 'type',
          params: { type: 'string' },
          message: 'must be string',
          schema: schema21.type,
          parentSchema: schema21,
          data: data14,
        };
        if (vErrors === null) {
          vErrors = [err30];
        } else {
          vErrors.push(err30);
        }
        errors++;
      }
    }
    if (data.api !== undefined) {
      let data15 = data.api;
      if (typeof data15 === 'string') {
        if (!pattern9.test(data15)) {
          const err31 = {
            instancePath: instancePath + '/api',
            schemaPath: '#/definitions/apiPath/pattern',
            keyword: 'pattern',
            params: {
              pattern: '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*\\.(?:ts|js)$',
            },
            message:
              'must match pattern "' +
              '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*\\.(?:ts|js)$' +
              '"',
            schema: '^(?![/\\\\])(?![a-zA-Z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*\\.(?:ts|js)$',
            parentSchema: schema22,
            data: data15,
          };
          if (vErrors === null) {
            vErrors = [err31];
          } else {
            vErrors.push(err31);
          }
          errors++;
        }
      } else {
        const err32 = {
          instancePath: instancePath + '/api',
          schemaPath: '#/definitions/apiPath/type',
          keyword: 'type',
          params: { type: 'string' },
          message: 'must be string',
          schema: schema22.type,
          parentSchema: schema22,
          data: data15,
        };
        if (vErrors === null) {
          vErrors = [err32];
        } else {
          vErrors.push(err32);
        }
        errors++;
      }
    }
  } else {
    const err33 = {
      instancePath,
      schemaPath: '#/type',
      keyword: 'type',
      params: { type: 'object' },
      message: 'must be object',
      schema: schema11.type,
      parentSchema: schema11,
      data,
    };
    if (vErrors === null) {
      vErrors = [err33];
    } else {
      vErrors.push(err33);
    }
    errors++;
  }
  validate10.errors = vErrors;
  return errors === 0;
}
