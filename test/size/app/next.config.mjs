// The Next.js consumer of `npm run size`: a plain production build (`next build`, Turbopack). Type
// checking is off: the build is there to measure what the bundler ships.
export default { typescript: { ignoreBuildErrors: true } };
