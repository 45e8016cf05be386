// The entry of the session renderer bundle (compiled by Vite, see compile.ts): the session page component
// and Astro's container, from one build so both share Astro's runtime.
export { default as SessionPage } from '../components/SessionPage.astro';
export { experimental_AstroContainer } from 'astro/container';
